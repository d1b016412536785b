/// The server's side over time (`Timeline`, as timeseries.csv): per second, HTTP requests
/// completed, time to first byte p99, whole request p99, failed loads and users scrolling, one
/// line per cell (its first measured run: repeats are the same load again, and adding them would
/// double its rate).
extension HTMLReport {
    /// One per-second quantity: its chart's label and title, and its value in a second (nil: the
    /// second had no sample, as time to first byte in a second no load finished).
    private struct PerSecond {
        let label: String, title: String, name: String
        /// A series that stays on one value is said, not drawn (one user scrolling).
        var sayIfConstant = false
        let value: (Timeline.Interval) -> Double?
    }

    func loadCharts(_ context: Context) -> String {
        let firsts = context.runs.compactMap(\.first).filter { $0.timeline.intervals.count > 1 }
        guard !firsts.isEmpty else { return "" }
        let legend = firsts.map { run in
            (name: run.cell.name, colour: context.colour(run.cell.strategy.rawValue, run.cell.concurrency, format: run.cell.format.description))
        }
        let quantities = [
            PerSecond(label: "load-rate", title: "HTTP requests completed per second", name: "HTTP requests") { Double($0.httpRequests) },
            PerSecond(label: "load-ttfb", title: "time to first byte p99 (ms), per second", name: "first bytes") {
                $0.ttfb.count > 0 ? $0.ttfb.milliseconds(atPercentile: 99) : nil
            },
            PerSecond(label: "load-request", title: "whole request p99 (ms), per second", name: "network loads") {
                $0.request.count > 0 ? $0.request.milliseconds(atPercentile: 99) : nil
            },
            PerSecond(label: "load-errors", title: "failed loads per second", name: "failed loads") { Double($0.errors) },
            PerSecond(label: "load-users", title: "users scrolling", name: "users scrolling", sayIfConstant: true) { Double($0.activeUsers) },
        ]
        var leftOut = LeftOutCharts(), charts: [String] = []
        for quantity in quantities {
            let values = firsts.flatMap { $0.timeline.intervals.compactMap(quantity.value) }
            if quantity.sayIfConstant, let value = LeftOutCharts.constant(values) {
                leftOut.constant.append((quantity.name, Format.compact(value)))
            } else if !quantity.sayIfConstant && LeftOutCharts.allZero(values) {
                leftOut.absent.append(quantity.name)
            } else {
                charts.append(chart(firsts, legend: legend, label: quantity.label, title: quantity.title, value: quantity.value))
            }
        }
        // Two a row, as they fit side by side in the page's width.
        let rows = stride(from: 0, to: charts.count, by: 2).map { "<div class=\"row\">\n" + charts[$0..<min(charts.count, $0 + 2)].joined() + "</div>\n" }
        return leftOut.html + rows.joined()
    }

    /// One line per run over its seconds, broken only where a second had no sample: a line
    /// across the gap would draw values nobody measured.
    private func chart(_ runs: [RunResult], legend: [(name: String, colour: String)], label: String, title: String,
                       value: (Timeline.Interval) -> Double?) -> String {
        let seconds = runs.map(\.timeline.intervals.count).max() ?? 1
        let highest = runs.flatMap { $0.timeline.intervals.compactMap(value) }.max() ?? 0
        // From 0 (a rate or a time is read against none), to a round value above the highest.
        let (ticks, end) = RoundTicks.ticks(upTo: highest > 0 ? highest * 1.05 : 1, count: 4)
        let (xTicks, xEnd) = RoundTicks.ticks(upTo: Double(max(1, seconds - 1)), count: 5, integers: true)
        let frame = ChartFrame(width: 490, plotHeight: 200, x: 0...xEnd, y: 0...end, legend: legend)
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        let xStep = xTicks.count > 1 ? xTicks[1] - xTicks[0] : 1
        var svg = frame.axes(xTicks: xTicks.map { ($0, RoundTicks.label($0, step: xStep, unit: " s")) },
                             yTicks: ticks.map { ($0, RoundTicks.label($0, step: step)) },
                             xTitle: "seconds from the run's start", title: title)
        for (run, entry) in zip(runs, legend) {
            let points = run.timeline.intervals.enumerated().map { second, interval in
                value(interval).map { (frame.x(Double(second)), frame.y($0)) }
            }
            svg += ChartFrame.brokenLine(points, colour: entry.colour, series: entry.name)
        }
        return frame.svg(svg, label: label)
    }
}
