/// The server's side over time (`Timeline`, as timeseries.csv): per second, HTTP requests
/// completed, time to first byte p99, whole request p99, failed loads and users scrolling, one
/// line per cell (its first measured run: repeats are the same load again, and adding them would
/// double its rate).
extension HTMLReport {
    func loadCharts(_ context: Context) -> String {
        let firsts = context.runs.compactMap(\.first).filter { $0.timeline.intervals.count > 1 }
        guard !firsts.isEmpty else { return "" }
        let legend = firsts.map { run in
            (name: run.cell.name, colour: context.colour(run.cell.strategy.rawValue, run.cell.concurrency, format: run.cell.format.description))
        }
        let rate = chart(firsts, legend: legend, label: "load-rate", title: "HTTP requests completed per second", unit: "") {
            Double($0.httpRequests)
        }
        let ttfb = chart(firsts, legend: legend, label: "load-ttfb", title: "time to first byte p99 (ms), per second", unit: "") {
            $0.ttfb.count > 0 ? $0.ttfb.milliseconds(atPercentile: 99) : nil
        }
        let request = chart(firsts, legend: legend, label: "load-request", title: "whole request p99 (ms), per second", unit: "") {
            $0.request.count > 0 ? $0.request.milliseconds(atPercentile: 99) : nil
        }
        let errors = chart(firsts, legend: legend, label: "load-errors", title: "failed loads per second", unit: "") { Double($0.errors) }
        let users = chart(firsts, legend: legend, label: "load-users", title: "users scrolling", unit: "") { Double($0.activeUsers) }
        return "<div class=\"row\">\n" + rate + ttfb + "</div>\n<div class=\"row\">\n" + request + errors + "</div>\n"
            + "<div class=\"row\">\n" + users + "</div>\n"
    }

    /// One line per run over its seconds; a second with no value (no load finished) breaks nothing,
    /// it is left out of the line.
    private func chart(_ runs: [RunResult], legend: [(name: String, colour: String)], label: String, title: String, unit: String,
                       value: (Timeline.Interval) -> Double?) -> String {
        let seconds = runs.map(\.timeline.intervals.count).max() ?? 1
        let highest = runs.flatMap { $0.timeline.intervals.compactMap(value) }.max() ?? 0
        let (ticks, end) = RoundTicks.ticks(upTo: highest > 0 ? highest * 1.05 : 1, count: 4)
        let (xTicks, xEnd) = RoundTicks.ticks(upTo: Double(max(1, seconds - 1)), count: 5, integers: true)
        let frame = ChartFrame(width: 490, plotHeight: 200, x: 0...xEnd, y: 0...end, legend: legend)
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        let xStep = xTicks.count > 1 ? xTicks[1] - xTicks[0] : 1
        var svg = frame.axes(xTicks: xTicks.map { ($0, RoundTicks.label($0, step: xStep, unit: " s")) },
                             yTicks: ticks.map { ($0, RoundTicks.label($0, step: step, unit: unit)) },
                             xTitle: "seconds from the run's start", title: title)
        for (run, entry) in zip(runs, legend) {
            let points = run.timeline.intervals.enumerated().compactMap { second, interval in
                value(interval).map { (frame.x(Double(second)), frame.y($0)) }
            }
            svg += ChartFrame.polyline(points, colour: entry.colour, series: entry.name, dots: points.count < 3)
        }
        return frame.svg(svg, label: label)
    }
}
