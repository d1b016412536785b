import Foundation

/// `report.html`: one self-contained page (inline SVG, no script, no network) to understand a
/// benchmark in a minute: the findings, the latency distributions, the concurrency sweep, where
/// requests were served from, a scroll timeline of one run, and the configuration.
public struct HTMLReport: ReportWriter {
    public let fileName = "report.html"

    public init() {}

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    public func render(_ results: BenchmarkResults) throws -> String {
        let settings = results.plan.settings
        var body = "<h1>imgbench report</h1>\n"
        if let reason = results.stoppedBy {
            body += "<p class=\"warn\">Partial results: stopped by \(escape(reason)).</p>\n"
        }
        let verdict = Verdict(results).lines
        body += "<h2>Verdict</h2>\n<p class=\"verdict\"><strong>\(escape(verdict[0]))</strong></p>\n<ul>\n"
            + verdict.dropFirst().map { "<li>\(escape($0))</li>" }.joined(separator: "\n") + "\n</ul>\n"
        let findings = Findings.sentences(results.results)
        if !findings.isEmpty {
            body += "<h2>Findings</h2>\n<ul>\n" + findings.map { "<li>\(escape($0))</li>" }.joined(separator: "\n") + "\n</ul>\n"
        }
        body += "<h2>Display latency</h2>\n<p>Share of requests displayed within a latency (memory hits, 0 ms, sit at the left edge).</p>\n"
        body += latencyChart(results.results)
        let limits = Set(results.results.map(\.cell.concurrency))
        if limits.count > 1 {
            body += "<h2>Concurrency sweep</h2>\n<div class=\"row\">\n"
            body += sweepChart(results.results, metric: .latencyP95, title: "p95 display latency (ms)")
            body += sweepChart(results.results, metric: .memoryHitRate, title: "memory hit rate", scale: 100, unit: "%")
            body += sweepChart(results.results, metric: .bytesDownloaded, title: "downloaded (MB)", scale: 1e-6)
            body += "</div>\n"
        }
        body += "<h2>Where requests were served from</h2>\n" + sourcesChart(results.results)
        if let first = results.results.first {
            body += "<h2>Scroll timeline: \(escape(first.cell.strategy.rawValue)) ×\(first.cell.concurrency) #\(first.cell.repetition)"
                + (settings.clients > 1 ? ", user 0" : "") + "</h2>\n"
            body += "<p>Each row on screen, from the frame it appeared (left) to the frame its image did: a placeholder "
                + "meanwhile (orange), the image once shown (green dot), or an error (red). The blue line is the viewport's top row.</p>\n"
            body += timelineChart(first, fps: settings.fps)
        }
        body += "<h2>Configuration</h2>\n" + configurationTable(results)
        return page(title: "imgbench report", style: """
            .row { display: flex; flex-wrap: wrap; gap: 12px; } svg { background: #fff; }
            table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
            .warn { background: #fff3cd; padding: 6px 10px; }
            """, body: body)
    }

    // MARK: - charts

    /// A chart's frame: plot area, axes with ticks and labels, and a legend; series draw inside.
    struct Frame {
        let width: Double, height: Double
        let left = 56.0, right = 16.0, top = 28.0, bottom = 40.0
        let x: (Double) -> Double, y: (Double) -> Double

        var plotWidth: Double { width - left - right }
        var plotHeight: Double { height - top - bottom }

        init(width: Double, height: Double, x: ClosedRange<Double>, y: ClosedRange<Double>, logX: Bool = false,
             flipY: Bool = false) {
            self.width = width
            self.height = height
            let (left, top, plotWidth, plotHeight) = (56.0, 28.0, width - 72, height - 68)
            let span = { (value: Double, range: ClosedRange<Double>, log: Bool) -> Double in
                let (v, lo, hi) = log ? (Foundation.log10(max(value, range.lowerBound)), Foundation.log10(range.lowerBound), Foundation.log10(range.upperBound))
                                      : (value, range.lowerBound, range.upperBound)
                return hi > lo ? (v - lo) / (hi - lo) : 0.5
            }
            self.x = { left + span($0, x, logX) * plotWidth }
            self.y = flipY ? { top + span($0, y, false) * plotHeight } : { top + plotHeight - span($0, y, false) * plotHeight }
        }

        func axes(xTicks: [(Double, String)], yTicks: [(Double, String)], xTitle: String, title: String) -> String {
            var svg = "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(plotHeight))\" fill=\"none\" stroke=\"#999\"/>\n"
            for (value, label) in xTicks {
                svg += "<line x1=\"\(f(x(value)))\" y1=\"\(f(top))\" x2=\"\(f(x(value)))\" y2=\"\(f(top + plotHeight))\" stroke=\"#eee\"/>"
                svg += "<text x=\"\(f(x(value)))\" y=\"\(f(top + plotHeight + 14))\" font-size=\"11\" text-anchor=\"middle\">\(label)</text>\n"
            }
            for (value, label) in yTicks {
                svg += "<line x1=\"\(f(left))\" y1=\"\(f(y(value)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(value)))\" stroke=\"#eee\"/>"
                svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(value) + 4))\" font-size=\"11\" text-anchor=\"end\">\(label)</text>\n"
            }
            svg += "<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 6))\" font-size=\"12\" text-anchor=\"middle\">\(escape(xTitle))</text>\n"
            svg += "<text x=\"\(f(left))\" y=\"16\" font-size=\"13\" font-weight=\"bold\">\(escape(title))</text>\n"
            return svg
        }

        /// In the plot's lower right, where cumulative curves and rising lines leave room.
        func legend(_ names: [String]) -> String {
            names.enumerated().map { index, name in
                let y = top + plotHeight - 8 - Double(names.count - 1 - index) * 15
                return "<rect x=\"\(f(left + plotWidth - 150))\" y=\"\(f(y - 8))\" width=\"10\" height=\"10\" fill=\"\(HTMLReport.palette[index % HTMLReport.palette.count])\"/>"
                    + "<text x=\"\(f(left + plotWidth - 135))\" y=\"\(f(y + 1))\" font-size=\"11\">\(escape(name))</text>"
            }.joined(separator: "\n") + "\n"
        }
    }

    func latencyChart(_ results: [RunResult]) -> String {
        // One distribution per cell, repeats merged.
        var order: [String] = [], merged: [String: LatencyHistogram] = [:]
        for result in results {
            let key = "\(result.cell.strategy.rawValue) ×\(result.cell.concurrency)"
            if merged[key] == nil { order.append(key) }
            merged[key, default: LatencyHistogram()].add(result.latency)
        }
        let maxMs = max(10, merged.values.map(\.maxMilliseconds).max() ?? 10)
        let frame = Frame(width: 1000, height: 360, x: 1...maxMs * 1.2, y: 0...100, logX: true)
        var ticks: [(Double, String)] = []
        var tick = 1.0
        while tick <= maxMs * 1.2 { ticks.append((tick, tick >= 1000 ? "\(Int(tick / 1000)) s" : "\(Int(tick)) ms")); tick *= 10 }
        var svg = frame.axes(xTicks: ticks, yTicks: stride(from: 0.0, through: 100, by: 25).map { ($0, "\(Int($0))%") },
                             xTitle: "display latency (log scale)", title: "Latency distribution (cumulative)")
        for (index, key) in order.enumerated() {
            let histogram = merged[key]!
            guard histogram.count > 0 else { continue }
            let percentiles = stride(from: 0.0, through: 99.0, by: 1.0).map { $0 } + [99.5, 99.9, 100]
            let points = percentiles.map { p in (frame.x(max(1, histogram.milliseconds(atPercentile: p))), frame.y(p)) }
            svg += polyline(points, colour: Self.palette[index % Self.palette.count], series: key)
        }
        return svgElement(frame, svg + frame.legend(order), label: "latency-cdf")
    }

    func sweepChart(_ results: [RunResult], metric: Metric, title: String, scale: Double = 1, unit: String = "") -> String {
        let cells = CellAggregate.of(results)
        let strategies = cells.map(\.strategy).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let limits = Array(Set(cells.map(\.concurrency))).sorted()
        let values = cells.compactMap { $0.median(metric) }.map { $0 * scale }
        let top = max(values.max() ?? 1, 1e-9) * 1.15
        let frame = Frame(width: 350, height: 260, x: Double(limits.first!)...Double(limits.last!), y: 0...top)
        var svg = frame.axes(xTicks: limits.map { (Double($0), "\($0)") },
                             yTicks: stride(from: 0.0, through: top, by: top / 4).map { ($0, String(format: top < 10 ? "%.1f" : "%.0f", $0) + unit) },
                             xTitle: "concurrency limit", title: title)
        for (index, strategy) in strategies.enumerated() {
            let points = cells.filter { $0.strategy == strategy }.sorted { $0.concurrency < $1.concurrency }
                .map { (frame.x(Double($0.concurrency)), frame.y(($0.median(metric) ?? 0) * scale)) }
            svg += polyline(points, colour: Self.palette[index % Self.palette.count], series: strategy, dots: true)
        }
        return svgElement(frame, svg + frame.legend(strategies), label: "sweep-\(metric.name)")
    }

    func sourcesChart(_ results: [RunResult]) -> String {
        let cells = CellAggregate.of(results)
        let kinds: [(String, Metric, String)] = [("memory", .memoryHits, "#2ca02c"), ("disk", .diskHits, "#17becf"),
                                                ("network", .networkFetches, "#1f77b4"), ("merged", .merged, "#9467bd"),
                                                ("error", .errors, "#d62728")]
        let rowHeight = 26.0, labelWidth = 170.0, barWidth = 560.0
        let height = Double(cells.count) * rowHeight + 50
        var svg = ""
        for (index, cell) in cells.enumerated() {
            let runs = results.filter { $0.cell.strategy.rawValue == cell.strategy && $0.cell.concurrency == cell.concurrency }
            let totals = kinds.map { kind in runs.reduce(0.0) { $0 + (kind.1.number(of: $1.summary) ?? 0) } }
            let sum = max(1, totals.reduce(0, +))
            let y = 30 + Double(index) * rowHeight
            svg += "<text x=\"0\" y=\"\(f(y + 14))\" font-size=\"12\">\(escape(cell.strategy)) ×\(cell.concurrency)</text>\n"
            var x = labelWidth
            for (kind, total) in zip(kinds, totals) where total > 0 {
                let width = total / sum * barWidth
                svg += "<rect class=\"series\" data-series=\"\(kind.0)\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"18\" fill=\"\(kind.2)\"><title>\(kind.0): \(Int(total))</title></rect>"
                x += width
            }
            let saved = runs.reduce(0.0) { $0 + Double($1.summary.bytesSaved) } / Double(max(1, runs.count)) / 1e6
            let cancelled = runs.reduce(0) { $0 + $1.summary.cancelledQueued + $1.summary.cancelledInflight } / max(1, runs.count)
            svg += "<text x=\"\(f(labelWidth + barWidth + 10))\" y=\"\(f(y + 14))\" font-size=\"11\">\(cancelled) cancelled, "
                + String(format: "%.1f MB saved", saved) + "</text>\n"
        }
        var legend = ""
        for (index, kind) in kinds.enumerated() {
            legend += "<rect x=\"\(f(labelWidth + Double(index) * 90))\" y=\"4\" width=\"10\" height=\"10\" fill=\"\(kind.2)\"/>"
                + "<text x=\"\(f(labelWidth + Double(index) * 90 + 14))\" y=\"13\" font-size=\"11\">\(kind.0)</text>"
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"sources\" width=\"1000\" height=\"\(f(height))\">\n\(legend)\n\(svg)</svg>\n"
    }

    func timelineChart(_ result: RunResult, fps: Int) -> String {
        // One user's screen (the first, with --clients).
        let requests = result.requests.filter { $0.client == 0 }
        guard !requests.isEmpty else { return "<p>No requests.</p>\n" }
        let lastFrame = Double(requests.map { max($0.visibleFrame, $0.displayFrame ?? $0.visibleFrame) }.max()! + fps / 2)
        let rows = Double((requests.map(\.row).max() ?? 0) + 1)
        // Row 0 at the top, as on the screen.
        let frame = Frame(width: 1000, height: 420, x: 0...lastFrame / Double(fps), y: 0...rows, flipY: true)
        let seconds = lastFrame / Double(fps)
        let step = max(1, (seconds / 8).rounded(.up))
        var svg = frame.axes(xTicks: stride(from: 0.0, through: seconds, by: step).map { ($0, String(format: "%.0f s", $0)) },
                             yTicks: stride(from: 0.0, through: rows, by: max(1, (rows / 5).rounded(.up))).map { ($0, "row \(Int($0))") },
                             xTitle: "time", title: "What the user saw")
        // Thin marks are enough: thousands of rows; one path per kind keeps the file small.
        var waiting = "", shown = "", failed = ""
        for request in requests {
            let y = f(frame.y(Double(request.row)))
            let start = frame.x(Double(request.visibleFrame) / Double(fps))
            switch request.outcome {
            case .displayed:
                let end = frame.x(Double(request.displayFrame!) / Double(fps))
                if end > start + 0.3 { waiting += "M\(f(start)) \(y)H\(f(end))" }
                shown += "M\(f(end)) \(y)h1.2"
            case .neverDisplayed:
                waiting += "M\(f(start)) \(y)h2"
            case .error:
                failed += "M\(f(start)) \(y)h2"
            }
        }
        svg += "<path class=\"series\" data-series=\"placeholder\" d=\"\(waiting)\" stroke=\"#ff7f0e\" stroke-width=\"1.5\" fill=\"none\"/>\n"
        svg += "<path class=\"series\" data-series=\"displayed\" d=\"\(shown)\" stroke=\"#2ca02c\" stroke-width=\"2.5\" fill=\"none\"/>\n"
        if !failed.isEmpty { svg += "<path class=\"series\" data-series=\"error\" d=\"\(failed)\" stroke=\"#d62728\" stroke-width=\"2.5\" fill=\"none\"/>\n" }
        // The viewport: the smallest row that appeared in each frame so far, as the top edge.
        var top: [Int: Int] = [:]
        for request in requests { top[request.visibleFrame] = min(top[request.visibleFrame] ?? .max, request.row) }
        let edge = top.keys.sorted().map { (frame.x(Double($0) / Double(fps)), frame.y(Double(top[$0]!))) }
        svg += polyline(edge, colour: "#1f77b4", series: "viewport", width: 1)
        return svgElement(frame, svg, label: "timeline")
    }

    func configurationTable(_ results: BenchmarkResults) -> String {
        let settings = results.plan.settings
        var rows: [(String, String)] = [
            ("command", "imgbench run " + RunArguments(results.plan).words.joined(separator: " ")),
            ("rows", "\(settings.rows)"), ("scroll", "\(settings.scroll.rawValue), \(settings.fps) fps, seed \(settings.seed)"),
            ("network", "\(settings.network)"), ("source", settings.source.description),
            ("strategies × limits", results.plan.strategies.map(\.rawValue).joined(separator: ", ") + " × " + results.plan.concurrencies.map(String.init).joined(separator: ", ")),
            ("repeats", "\(results.plan.repeats) (+\(results.plan.warmups) warm-up)"),
            ("pipeline", "transport \(settings.transport.rawValue), filter \(settings.filter.rawValue), cancel \(settings.cancelPolicy.rawValue), prefetch \(settings.prefetch), memory cache \(settings.memoryCacheBytes / 1_048_576) MB"),
        ]
        for (name, value) in results.environment.json.sorted(by: { $0.key < $1.key }) { rows.append((name.replacingOccurrences(of: "_", with: " "), value is NSNull ? "unknown" : "\(value)")) }
        return "<table>\n" + rows.map { "<tr><th>\(escape($0.0))</th><td>\(escape($0.1))</td></tr>" }.joined(separator: "\n") + "\n</table>\n"
    }

    // MARK: - SVG pieces

    func polyline(_ points: [(Double, Double)], colour: String, series: String, dots: Bool = false, width: Double = 2) -> String {
        let list = points.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
        var svg = "<polyline class=\"series\" data-series=\"\(escape(series))\" points=\"\(list)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(f(width))\"/>\n"
        if dots { svg += points.map { "<circle cx=\"\(f($0.0))\" cy=\"\(f($0.1))\" r=\"3\" fill=\"\(colour)\"/>" }.joined() + "\n" }
        return svg
    }

    func svgElement(_ frame: Frame, _ content: String, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"\(label)\" width=\"\(f(frame.width))\" height=\"\(f(frame.height))\">\n\(content)</svg>\n"
    }
}

/// A self-contained page: the shared type and headings, the page's own rules, its body.
func page(title: String, style: String, body: String) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8"/>
    <title>\(escape(title))</title>
    <style>
    body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
    h1 { font-size: 24px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
    \(style)
    </style>
    </head>
    <body>
    \(body)</body>
    </html>

    """
}

private func f(_ value: Double) -> String { String(format: "%.1f", value) }

/// Text for HTML: the five characters that could end an element or an attribute, escaped.
func escape(_ text: String) -> String {
    var escaped = ""
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
    }
    return escaped
}
