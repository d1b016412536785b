import Foundation

extension HTMLReport {
    /// The numbers behind the verdict, one row per cell: each value with its 95% interval (the
    /// single-run interval of mean placeholder time; with repeats, the bootstrap interval of every
    /// median) and the n each percentile is of.
    func numbersTable(_ context: Context) -> String {
        var html = "<div class=\"table-wrap\">\n<table class=\"numbers\">\n<tr><th>cell</th><th>runs</th><th>ranked</th>"
            + "<th>placeholder mean ms [95% CI] (n)</th><th>placeholder p95 ms (n)</th><th>display p95 ms (n shown)</th>"
            + "<th>ready p50 / p95 ms (n)</th><th>mem hit</th><th>kB / image</th><th>CPU ms / image</th>"
            + "<th>hitch ms/s</th><th>dropped</th><th>host-late</th><th>HTTP errors (rate, by status)</th></tr>\n"
        // A value on the first line, its interval and n on a second, smaller one that may wrap
        // between its pieces, never inside an interval: thirteen columns of
        // "77.6 [11.6–143.5] (600)" on one line are wider than a laptop's window.
        let cellText = { (value: String, detail: [String]) in
            escape(value) + (detail.isEmpty ? "" : "<span class=\"detail\">"
                + detail.map { "<span>\(escape($0))</span>" }.joined(separator: " ") + "</span>")
        }
        for ((cell, aggregate), runs) in zip(zip(context.verdict.cells, context.aggregates), context.runs) {
            let requests = runs.reduce(0) { $0 + $1.summary.placeholder.n }
            let shown = runs.reduce(0) { $0 + $1.summary.displayed }
            let value = { (metric: Metric, scale: Double, format: String) -> (value: String, interval: String) in
                guard let estimate = aggregate.estimate(metric) else { return ("–", "") }
                let text = String(format: format, estimate.median * scale)
                guard aggregate.runs > 1 else { return (text, "") }
                return (text, "[" + String(format: format, estimate.low * scale) + "–" + String(format: format, estimate.high * scale) + "]")
            }
            let pieces = { (interval: String) in interval.isEmpty ? [] : [interval] }
            let plain = { (pair: (value: String, interval: String)) in cellText(pair.value, pieces(pair.interval)) }
            let withN = { (pair: (value: String, interval: String), n: Int) in cellText(pair.value, pieces(pair.interval) + ["(\(n))"]) }
            let interval = cell.placeholder.interval.map { String(format: "[%.1f–%.1f]", $0.low, $0.high) } ?? ""
            let ranked = cell.validity == .valid ? "yes" : cell.validity == .control ? "no: the control" : "no: \(cell.validity)"
            let (p50, p95) = (value(.ready[.p50], 1, "%.1f"), value(.ready[.p95], 1, "%.1f"))
            let hitRate = value(.memoryHitRate, 100, "%.1f")
            let columns = [
                "<th><span class=\"swatch\" style=\"background: \(context.colour(cell))\"></span>\(escape(cell.name))</th>",
                "\(aggregate.runs)", escape(ranked),
                cellText(String(format: "%.1f", cell.placeholder.overall), pieces(interval) + ["(\(requests))"]),
                withN(value(.placeholder[.p95], 1, "%.1f"), requests),
                withN(value(.display[.p95], 1, "%.1f"), shown),
                cellText(p50.value + " / " + p95.value, (p50.interval.isEmpty ? [] : [p50.interval + " /", p95.interval]) + ["(\(shown))"]),
                cellText(hitRate.value + (hitRate.value == "–" ? "" : "%"), pieces(hitRate.interval)),
                String(format: "%.1f", cell.bytesPerImage / 1000), String(format: "%.2f", cell.cpuPerImage * 1000),
                plain(value(.hitchMsPerS, 1, "%.1f")), plain(value(.droppedFrames, 1, "%.0f")),
                runs.reduce(0) { $0 + $1.summary.hostLateFrames }.description,
                Self.errorsCell(ErrorTotals(runs.map(\.summary)), cellText),
            ]
            html += "<tr class=\"cell\">" + columns.enumerated().map { $0.offset == 0 ? $0.element : "<td>\($0.element)</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n</div>\n<p class=\"note\">HTTP errors: failed HTTP requests over HTTP requests sent "
            + "(a cancelled transfer counts as sent, neither failed nor succeeded), by status, or by class where no status came. Placeholder time counts every request (a memory hit 0 ms; a row that left before "
            + "its image, the time it was on screen); display and ready latency count the requests shown. Its interval: "
            + escape(Verdict.method) + "." + (context.results.plan.repeats > 1
                ? " Other intervals: median over repeats, 95% percentile bootstrap." : " Run with --repeat 3 or more for intervals of the other columns.")
            + "</p>\n"
    }

    /// "45.0%" over "404 ×8250, 500 ×3"; "0" without errors.
    static func errorsCell(_ totals: ErrorTotals, _ cellText: (String, [String]) -> String) -> String {
        guard totals.httpErrors.total > 0 else { return "0" }
        return cellText(Format.percent(totals.rate), [totals.httpErrors.listing(limit: 3)])
    }
}
