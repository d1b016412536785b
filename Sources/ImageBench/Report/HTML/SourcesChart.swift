import Foundation

extension HTMLReport {
    /// Where each cell's requests were served from, as shares of one bar, with what cancelling
    /// and merging did beside it.
    func sourcesChart(_ context: Context) -> String {
        let kinds: [(name: String, metric: Metric)] = [("memory", .memoryHits), ("disk", .diskHits), ("network", .networkFetches),
                                                       ("merged", .merged), ("error", .errors)]
        let rowHeight = 26.0, labelWidth = 170.0, barWidth = 560.0
        let cells = context.runs
        let height = Double(cells.count) * rowHeight + 50
        let n = svgNumber
        var svg = ""
        for (index, runs) in cells.enumerated() {
            let cell = runs[0].cell
            let totals = kinds.map { kind in runs.reduce(0.0) { $0 + (kind.metric.number(of: $1.summary) ?? 0) } }
            let sum = max(1, totals.reduce(0, +))
            let y = 30 + Double(index) * rowHeight
            svg += "<text x=\"0\" y=\"\(n(y + 14))\" font-size=\"12\">\(escape(cell.name))</text>\n"
            var x = labelWidth
            for (kind, total) in zip(kinds, totals) where total > 0 {
                let width = total / sum * barWidth
                svg += "<rect class=\"series\" data-series=\"\(kind.name)\" x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(width))\" height=\"18\" "
                    + "fill=\"\(SeriesColours.kind(kind.name))\"><title>\(kind.name): \(Int(total))</title></rect>"
                x += width
            }
            let saved = runs.reduce(0.0) { $0 + Double($1.summary.bytesSaved) } / Double(runs.count) / 1e6
            let cancelled = runs.reduce(0) { $0 + $1.summary.cancelledQueued + $1.summary.cancelledInflight } / runs.count
            svg += "<text x=\"\(n(labelWidth + barWidth + 10))\" y=\"\(n(y + 14))\" font-size=\"11\">\(cancelled) cancelled, "
                + String(format: "%.1f MB saved", saved) + "</text>\n"
        }
        var legend = "<g class=\"legend\">"
        for (index, kind) in kinds.enumerated() {
            legend += "<rect x=\"\(n(labelWidth + Double(index) * 90))\" y=\"4\" width=\"10\" height=\"10\" fill=\"\(SeriesColours.kind(kind.name))\"/>"
                + "<text x=\"\(n(labelWidth + Double(index) * 90 + 14))\" y=\"13\" font-size=\"11\">\(kind.name)</text>"
        }
        return ChartFrame.svg(legend + "</g>\n" + svg, label: "sources", width: 1000, height: height)
    }
}
