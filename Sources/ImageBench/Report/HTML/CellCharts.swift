import Foundation

/// The charts that compare cells: latency distributions, the concurrency sweep, and one value per
/// cell with its 95% interval (placeholder time, hitches, dropped frames).
extension HTMLReport {
    /// What every chart of one page draws from.
    struct Context {
        let results: BenchmarkResults
        let verdict: Verdict
        let aggregates: [CellAggregate]
        /// Each cell's runs, in the order of `verdict.cells` and `aggregates` (all by cell, as run).
        let runs: [[RunResult]]
        let colours: SeriesColours

        init(_ results: BenchmarkResults) {
            self.results = results
            verdict = Verdict(results)
            aggregates = CellAggregate.of(results.results)
            runs = RunResult.byCell(results.results)
            colours = SeriesColours(limits: results.plan.concurrencies)
            severalFormats = results.plan.formats.count > 1
        }

        /// Colours follow the format when there are several (`--formats`), else the strategy.
        let severalFormats: Bool

        func colour(_ cell: Verdict.Cell) -> String { colour(cell.strategy, cell.concurrency, format: cell.format) }

        func colour(_ strategy: String, _ limit: Int, format: String = "") -> String {
            StrategyKind(rawValue: strategy).map { colours.cell($0, limit, format: severalFormats ? format : nil) } ?? "#000000"
        }
    }

    /// The share of requests displayed within a latency, one cumulative curve per cell (repeats
    /// merged), n in the legend.
    func latencyChart(_ context: Context) -> String {
        let cells = context.runs.map { runs in
            (runs[0].cell, runs.reduce(into: LatencyHistogram()) { $0.add($1.latency) })
        }
        let maxMs = max(10, cells.map(\.1.maxMilliseconds).max() ?? 10)
        var decades: [Double] = [1]
        while decades.last! < maxMs { decades.append(decades.last! * 10) }
        let legend = cells.map { cell, histogram in
            (name: "\(cell.name) (n = \(histogram.count))",
             colour: context.colour(cell.strategy.rawValue, cell.concurrency, format: cell.format.description))
        }
        let frame = ChartFrame(width: 1000, plotHeight: 300, x: 1...decades.last!, y: 0...100, logX: true, legend: legend)
        var svg = frame.axes(xTicks: decades.map { ($0, $0 >= 1000 ? "\(Int($0 / 1000)) s" : "\(Int($0)) ms") },
                             yTicks: stride(from: 0.0, through: 100, by: 25).map { ($0, "\(Int($0))%") },
                             xTitle: "display latency (log scale)", title: "Latency distribution (cumulative)")
        for ((cell, histogram), entry) in zip(cells, legend) where histogram.count > 0 {
            let percentiles = stride(from: 0.0, through: 99.0, by: 1.0).map { $0 } + [99.5, 99.9, 100]
            let points = percentiles.map { p in (frame.x(max(1, histogram.milliseconds(atPercentile: p))), frame.y(p)) }
            svg += ChartFrame.polyline(points, colour: entry.colour, series: cell.name)
        }
        return frame.svg(svg, label: "latency-cdf")
    }

    /// One line per strategy over the limits; with repeats, each point's 95% interval as a whisker.
    /// The axis starts at 0; a share of all requests (`whole`: 100 for a percentage) runs to the
    /// whole, so a hit rate going from 0.2 to 2.2% stays a small change at the bottom, as it is.
    func sweepChart(_ context: Context, metric: Metric, title: String, scale: Double = 1, unit: String = "", whole: Double? = nil) -> String {
        let cells = context.aggregates
        // One line per strategy (and format, with several): "threads", "threads avif".
        func line(_ cell: CellAggregate) -> String {
            context.severalFormats ? "\(cell.strategy) \(cell.format)" : cell.strategy
        }
        let strategies = cells.map(line).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let limits = Array(Set(cells.map(\.concurrency))).sorted()
        let estimate = { (cell: CellAggregate) in cell.estimate(metric)! }
        let highest = cells.map { estimate($0).high * scale }.max() ?? 1
        let (ticks, end) = RoundTicks.ticks(upTo: whole ?? max(highest, 1e-9) * 1.05, count: 4)
        let legend = strategies.map { name in
            let cell = cells.first { line($0) == name }!
            return (name: name, colour: context.severalFormats ? SeriesColours.hue(format: cell.format).hex
                                                                : StrategyKind(rawValue: name).map(context.colours.strategy) ?? "#000000")
        }
        let frame = ChartFrame(width: 340, plotHeight: 200, x: Double(limits.first!)...Double(limits.last!), y: 0...end, legend: legend)
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        var svg = frame.axes(xTicks: limits.map { (Double($0), "\($0)") },
                             yTicks: ticks.map { ($0, RoundTicks.label($0, step: step, unit: unit)) },
                             xTitle: "concurrency limit", title: title)
        for entry in legend {
            let mine = cells.filter { line($0) == entry.name }.sorted { $0.concurrency < $1.concurrency }
            svg += ChartFrame.polyline(mine.map { (frame.x(Double($0.concurrency)), frame.y(estimate($0).median * scale)) },
                                       colour: entry.colour, series: entry.name, dots: true)
            for cell in mine where cell.runs > 1 {
                let interval = estimate(cell)
                svg += ChartFrame.whisker(x: frame.x(Double(cell.concurrency)), low: frame.y(interval.low * scale),
                                          high: frame.y(interval.high * scale), colour: entry.colour, series: entry.name)
            }
        }
        return frame.svg(svg, label: "sweep-\(metric.name)")
    }

    /// One horizontal bar per cell, in the verdict's colours, with its 95% interval where there is
    /// one; cells that are not ranked are drawn hollow and say why.
    func cellBars(_ context: Context, label: String, title: String, unit: String, width: Double = 1000, integers: Bool = false,
                  value: (Verdict.Cell, [RunResult]) -> (value: Double, low: Double?, high: Double?, note: String)) -> String {
        let cells = context.verdict.cells
        let values = zip(cells, context.runs).map(value)
        let highest = values.map { max($0.value, $0.high ?? 0) }.max() ?? 0
        // All zero (no hitches at all): an axis to 1 rather than to nothing.
        let (ticks, end) = RoundTicks.ticks(upTo: highest > 0 ? highest * 1.05 : 1, count: width < 500 ? 4 : 5, integers: integers)
        let rowHeight = 24.0
        // Labels on the left; room on the right for the longest note beside a bar.
        let frame = ChartFrame(width: width, plotHeight: Double(cells.count) * rowHeight, x: 0...end, y: 0...Double(cells.count),
                               flipY: true, left: 150, right: width < 500 ? 96 : 270)
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        var svg = frame.axes(xTicks: ticks.map { ($0, RoundTicks.label($0, step: step)) }, yTicks: [], xTitle: unit, title: title)
        let n = svgNumber
        for (index, (cell, entry)) in zip(cells, values).enumerated() {
            let y = frame.y(Double(index))
            let colour = context.colour(cell)
            let ranked = cell.validity.isValid
            svg += "<text x=\"\(n(frame.left - 6))\" y=\"\(n(y + 16))\" font-size=\"12\" text-anchor=\"end\">\(escape(cell.name))</text>"
            svg += "<rect class=\"series\" data-series=\"\(escape(cell.name))\" x=\"\(n(frame.left))\" y=\"\(n(y + 5))\" width=\"\(n(max(0.5, frame.x(entry.value) - frame.left)))\" height=\"14\" "
                + (ranked ? "fill=\"\(colour)\"" : "fill=\"none\" stroke=\"\(colour)\"")
                + "><title>\(escape(cell.name)): \(escape(entry.note))</title></rect>\n"
            if let low = entry.low, let high = entry.high {
                svg += ChartFrame.whisker(horizontalAt: y + 12, from: frame.x(max(0, low)), to: frame.x(high), series: cell.name)
            }
            let text = entry.note + (ranked ? "" : " (\(cell.validity == .control ? "control" : "not ranked"))")
            svg += "<text x=\"\(n(frame.x(max(entry.value, entry.high ?? 0)) + 6))\" y=\"\(n(y + 16))\" font-size=\"11\">\(escape(text))</text>\n"
        }
        return frame.svg(svg, label: label)
    }
}
