import Foundation

/// `report.html`: one self-contained page (inline SVG, no script, no network) to understand a
/// benchmark in a minute: the verdict, the numbers behind it with their intervals and n, the
/// latency distributions, the concurrency sweep, hitches, where requests were served from, a
/// scroll timeline around the worst moment of one run, and the configuration.
struct HTMLReport: ReportWriter {
    static let fileName = "report.html"

    init() {}

    func render(_ results: BenchmarkResults) throws -> String {
        let settings = results.plan.settings
        let context = Context(results)
        var body = "<h1>imgbench report</h1>\n"
        if let reason = results.stoppedBy {
            body += "<p class=\"warn\">Partial results: stopped by \(escape(reason)).</p>\n"
        }
        body += ReportOpening(results, verdict: context.verdict).html
        body += ErrorNotes(results).html
        body += "<h2>Numbers</h2>\n" + numbersTable(context)
        guard !results.results.isEmpty else {
            return page(title: "imgbench report", style: Self.style, body: body + "<h2>Configuration</h2>\n" + configurationTable(results))
        }
        body += cellBars(context, label: "placeholder-intervals", title: "Mean placeholder time per cell, with its 95% interval",
                         unit: "ms a row showed a placeholder, on average") { cell, _ in
            let interval = cell.placeholder.interval
            return (cell.placeholder.overall, interval?.low, interval?.high,
                    String(format: "%.1f ms", cell.placeholder.overall) + (interval.map { String(format: " [%.1f–%.1f]", $0.low, $0.high) } ?? "")
                    + " (n = \(cell.placeholder.requests))")
        }
        body += FormatTable(results).html + StageTable(results).html + PipelineNotes(results).html
        let findings = Findings.sentences(results)
        if !findings.isEmpty {
            body += "<h2>Findings</h2>\n<ul>\n" + findings.map { "<li>\(escape($0))</li>" }.joined(separator: "\n") + "\n</ul>\n"
        }
        body += "<h2>Display latency</h2>\n<p>Share of the requests shown that were shown within a latency (memory hits, 0 ms, "
            + "sit at the left edge; n is the requests shown).</p>\n" + latencyChart(context)
        if Set(results.results.map(\.cell.concurrency)).count > 1 {
            body += "<h2>Concurrency sweep</h2>\n<div class=\"row\">\n"
            body += sweepChart(context, metric: .placeholder[.mean], title: "mean placeholder time (ms)")
            body += sweepChart(context, metric: .display[.p95], title: "p95 display latency (ms)")
            body += sweepChart(context, metric: .memoryHitRate, title: "memory hit rate", scale: 100, unit: "%", whole: 100)
            body += sweepChart(context, metric: .bytesDownloaded, title: "downloaded (MB)", scale: 1e-6)
            body += "</div>\n"
        }
        body += "<h2>Hitches and dropped frames</h2>\n<p>The app's own: main-loop work that overran its frame. Frames the host woke "
            + "the loop late for are counted apart (a run late on more than 5% of them is not ranked).</p>\n" + frameCharts(context)
        body += "<h2>Where requests were served from</h2>\n" + sourcesChart(context)
        body += cacheSizeChart(context)
        let load = loadCharts(context)
        if !load.isEmpty {
            body += "<h2>Load over time</h2>\n<p>The server's side, second by second from each cell's first run "
                + "(timeseries.csv has every run): HTTP requests completed, and time to first byte within the second.</p>\n" + load
        }
        if let first = results.results.first {
            body += "<h2>Scroll timeline: \(escape(first.cell.name)) #\(first.cell.repetition)"
                + (settings.clients > 1 ? ", user 0" : "") + "</h2>\n"
            body += "<p>Above, the rows waiting for their image over the whole run. Below, the second with the most, "
                + "row by row: each row from the frame it appeared to the frame its image was shown (a placeholder "
                + "meanwhile), or to the frame it left the screen without it. The black line follows the rows entering the screen.</p>\n"
            body += timelineCharts(first, fps: settings.fps)
        }
        body += "<h2>Configuration</h2>\n" + configurationTable(results)
        return page(title: "imgbench report", style: Self.style, body: body)
    }

    static let style = """
        .row { display: flex; flex-wrap: wrap; gap: 12px; } svg { background: #fff; }
        svg.chart { max-width: 100%; height: auto; }
        table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
        table.configuration td { overflow-wrap: anywhere; }
        .table-wrap { max-width: 100%; overflow-x: auto; }
        table.numbers td, table.numbers th:first-child { text-align: right; white-space: nowrap; }
        table.numbers { font-size: 12px; } table.numbers td, table.numbers th { padding: 3px 5px; }
        table.numbers .detail { display: block; color: #666; font-size: 11px; white-space: normal; } .detail span { white-space: nowrap; }
        .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; }
        .warn { background: #fff3cd; padding: 6px 10px; } .note { color: #555; font-size: 12px; }
        """

    /// Hitch time, dropped frames and host-late frames per cell, with intervals over repeats; a
    /// chart no run had any of is left out, and one sentence names it.
    func frameCharts(_ context: Context) -> String {
        let metrics: [(Metric, String, String, String, String, Bool)] = [
            (.hitchMsPerS, "hitches", "hitches", "App hitch time", "ms per second of scrolling", false),
            (.droppedFrames, "dropped-frames", "dropped frames", "Frames the app dropped", "frames", true),
            (.hostLateFrames, "host-late", "host-late frames", "Frames the host woke late", "frames", true),
        ]
        var leftOut = LeftOutCharts(), charts = ""
        for (metric, label, name, title, unit, integers) in metrics {
            let values = context.runs.flatMap { $0.map { metric.number(of: $0.summary) ?? 0 } }
            guard !LeftOutCharts.allZero(values) else {
                leftOut.absent.append(name)
                continue
            }
            charts += cellBars(context, label: label, title: title, unit: unit, width: 340, integers: integers) { _, runs in
                let values = runs.map { metric.number(of: $0.summary) ?? 0 }
                let estimate = RepeatStatistics.median(values)
                let interval = values.count > 1 ? (estimate.low, estimate.high) : nil
                return (estimate.median, interval?.0, interval?.1, String(format: integers ? "%.0f" : "%.1f", estimate.median))
            }
        }
        return leftOut.html + (charts.isEmpty ? "" : "<div class=\"row\">\n" + charts + "</div>\n")
    }

    func configurationTable(_ results: BenchmarkResults) -> String {
        let settings = results.plan.settings
        var rows: [(String, String)] = [
            // As a shell reads it back: a word with a space (a User-Agent, a path) pasted unquoted
            // would be several flags' worth of words.
            ("command", (["imgbench", "run"] + RunArguments(results.plan).words).map(ShellWords.quoted).joined(separator: " ")),
            ("rows", "\(settings.rows)"), ("scroll", "\(settings.scroll.rawValue), \(settings.fps) fps, seed \(settings.seed)"),
            ("network", "\(settings.network)"), ("source", settings.source.description),
            ("strategies × limits", results.plan.strategies.map(\.rawValue).joined(separator: ", ") + " × " + results.plan.concurrencies.map(String.init).joined(separator: ", ")
                + (results.plan.formats == [.mixed] ? "" : " × " + results.plan.formats.map(\.description).joined(separator: ", "))),
            ("repeats", "\(results.plan.repeats) (+\(results.plan.warmups) warm-up rounds; \(Format.compact(results.plan.warmupSeconds)) s warm-up before each run)"),
            ("pipeline", "transport \(settings.transport.rawValue), filter \(settings.filter.rawValue), cancel \(settings.cancelPolicy.rawValue), prefetch \(settings.prefetch), memory cache \(settings.memoryCacheBytes / 1_000_000) MB"),
        ]
        for (name, value) in results.environment.json.sorted(by: { $0.key < $1.key }) { rows.append((name.replacingOccurrences(of: "_", with: " "), value is NSNull ? "unknown" : "\(value)")) }
        return "<table class=\"configuration\">\n" + rows.map { "<tr><th>\(escape($0.0))</th><td>\(escape($0.1))</td></tr>" }.joined(separator: "\n") + "\n</table>\n"
    }
}
