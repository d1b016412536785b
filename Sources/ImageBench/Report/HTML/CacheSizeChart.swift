import Foundation

extension HTMLReport {
    /// Memory hit rate against memory cache size (`CacheSizeCurve`), one line per cell, today's
    /// size and the smallest within 1 point of the best marked; nothing when no request was made.
    func cacheSizeChart(_ context: Context) -> String {
        let report = CacheSizeReport(context.results)
        guard let sentence = report.sentence else { return "" }
        guard !report.pooled.isEmpty else { return "<h2>Memory cache size</h2>\n<p>\(escape(sentence))</p>\n" }
        let n = svgNumber
        let end = Double(report.largestBytes) / 1e6
        let (xTicks, xEnd) = RoundTicks.ticks(upTo: end, count: 6)
        let xStep = xTicks.count > 1 ? xTicks[1] - xTicks[0] : 1
        let highest = report.cells.map(\.curve.bestHitRate).max() ?? 0
        let (yTicks, yEnd) = RoundTicks.ticks(upTo: max(0.05, highest * 1.05) * 100, count: 5)
        let yStep = yTicks.count > 1 ? yTicks[1] - yTicks[0] : 1
        let legend = report.cells.map { cell in
            (name: cell.name, colour: context.colour(cell.runs[0].cell.strategy.rawValue, cell.runs[0].cell.concurrency,
                                                     format: cell.runs[0].cell.format.description))
        }
        let frame = ChartFrame(width: 760, plotHeight: 260, x: 0...xEnd, y: 0...yEnd, legend: legend)
        var svg = frame.axes(xTicks: xTicks.map { ($0, RoundTicks.label($0, step: xStep, unit: " MB")) },
                             yTicks: yTicks.map { ($0, RoundTicks.label($0, step: yStep, unit: "%")) },
                             xTitle: "memory cache size (MB)", title: "Memory hit rate against cache size")
        for (cell, entry) in zip(report.cells, legend) {
            let points = cell.curve.points(upTo: Int(xEnd * 1e6)).map { (frame.x(Double($0.bytes) / 1e6), frame.y($0.hitRate * 100)) }
            svg += ChartFrame.polyline(points, colour: entry.colour, series: entry.name)
        }
        func marker(_ megabytes: Double, _ label: String, _ kind: String) -> String {
            let x = frame.x(megabytes)
            return "<line class=\"marker\" data-marker=\"\(kind)\" x1=\"\(n(x))\" y1=\"\(n(frame.y(0)))\" x2=\"\(n(x))\" y2=\"\(n(frame.y(yEnd)))\" "
                + "stroke=\"#222\" stroke-dasharray=\"4 3\"/><text x=\"\(n(x + 4))\" y=\"\(n(frame.y(yEnd) + 12))\" font-size=\"11\">\(escape(label))</text>\n"
        }
        svg += marker(Double(report.configuredBytes) / 1e6, "today: \(report.configuredMegabytes) MB", "configured")
        if !report.pooled.isEmpty {
            let smallest = report.pooled.smallestMegabytes()
            if smallest != report.configuredMegabytes {
                svg += marker(Double(smallest), "within 1 point of the best: \(smallest) MB", "smallest")
            }
        }
        return "<h2>Memory cache size</h2>\n<p>\(escape(sentence)) For each request, the smallest LRU cache that still held its image, "
            + "from the run's own lookups (Mattson's stack algorithm, weighted by each image's decoded bytes).</p>\n" + frame.svg(svg, label: "cache-size")
    }
}
