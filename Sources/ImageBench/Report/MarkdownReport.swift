import Foundation

/// `report.md`: the configuration and the comparison table, ready to paste into an issue.
struct MarkdownReport: ReportWriter {
    static let fileName = "report.md"

    init() {}

    /// The headline findings as a list, with a heading; nothing when there is nothing to compare.
    func findings(_ results: BenchmarkResults) -> String {
        let sentences = Findings.sentences(results)
        guard !sentences.isEmpty else { return "" }
        return "## Findings\n\n" + sentences.map { "- \($0)" }.joined(separator: "\n") + "\n\n## All numbers\n\n"
    }

    /// The recommendation in bold, then its reasons as a list.
    /// Errors, the load summary of a load test, the verdict (`ReportOpening`).
    func verdict(_ results: BenchmarkResults) -> String { ReportOpening(results).markdown }

    /// Under the app's table, which has display latency columns (a load test's table has none).
    static let latencyNote = """

        Latency is display latency: from the frame a row became visible to the frame its image was displayed \
        (memory hits count as 0 ms; rows that left first are "never shown" and not in the percentiles).

        """

    func render(_ results: BenchmarkResults) throws -> String {
        let settings = results.plan.settings
        let partial = results.stoppedBy.map {
            "**Partial results: stopped by \($0) after \(results.results.count) of \(results.plan.measuredRuns) runs; the last run covers only the part it ran.**\n\n"
        } ?? ""
        return """
        # imgbench report

        \(partial)\(verdict(results))

        \(ErrorNotes(results).markdown)\
        \(settings.rows) rows, scroll `\(settings.scroll.rawValue)` (\(String(format: "%.1f", results.traceSeconds)) s at \(settings.fps) fps), \
        network \(settings.source == .embedded ? settings.network.description : "the source's own (not shaped)"), transport `\(settings.transport.rawValue)`, \(settings.decodes ? "filter `\(settings.filter.rawValue)`" : "nothing decoded or filtered (`--no-decode`)"), cancel `\(settings.cancelPolicy.rawValue)`, \
        coalescing \(settings.coalesce ? "on" : "off"), prefetch \(settings.prefetch), memory cache \(settings.memoryCacheBytes / 1_000_000) MB, \
        disk cache \(settings.diskCacheDirectory.map { "`\($0)` (\(settings.diskCacheBytes / 1_000_000) MB, read on \(settings.diskRead.rawValue))" } ?? "off"), seed \(settings.seed).
        \(settings.injection == .none ? "" : "**Injected fault (a testing aid, not a real measurement): `\(settings.injection)`.**\n")\
        \(settings.faults.isEmpty ? "" : "Server faults injected: `\(settings.faults)`.\n")
        Workload: \(results.corpusImages) images\(results.corpusBytes > 0 ? ", \(results.corpusBytes / 1024) kB" : ""), \
        \(settings.source == .embedded ? "served by the embedded server" : "from \(settings.source.description)"), \
        feed `\(settings.feedOrder.rawValue)`.

        \(FormatTable(results).markdown)\(StageTable(results).markdown)\(PipelineNotes(results).markdown)\(findings(results))\(ComparisonTable(results).markdown)

        \(CacheSizeReport(results).markdown)\
        \(LoadSummary.applies(to: settings) ? "" : Self.latencyNote)
        """
    }
}
