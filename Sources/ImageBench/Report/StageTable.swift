import Foundation

/// With `--decode-concurrency` or `--filter-concurrency`: each cell's achieved concurrency per
/// stage, mean (while the stage was in use) and peak, beside its limit. Empty without stage
/// queues.
public struct StageTable: Sendable {
    static let header = ["cell", "#", "slots mean/peak", "network mean/peak", "decode mean/peak", "filter mean/peak"]
    let table: TextTable

    public init(_ results: BenchmarkResults) {
        // Each cell's own limits: `--decode-concurrency off,2` gives some cells a decode queue and others none.
        let cells = results.results.map { results.plan.settings(for: $0.cell) }
        guard cells.contains(where: { $0.decodeConcurrency != nil || $0.filterConcurrency != nil }) else {
            table = TextTable(title: "", header: Self.header, rows: [], legend: "", textColumns: 2)
            return
        }
        func pair(_ mean: Double, _ peak: Int, limit: Int?) -> String {
            "\(Format.tenths(mean))/\(peak)" + (limit.map { " (of \($0))" } ?? "")
        }
        let rows = zip(results.results, cells).map { result, settings -> [String] in
            let s = result.summary
            return [result.cell.name, String(result.cell.repetition),
                    pair(s.achievedConcurrencyMean, s.achievedConcurrencyPeak, limit: result.cell.concurrency),
                    pair(s.networkConcurrencyMean, s.networkConcurrencyPeak, limit: nil),
                    pair(s.decodeConcurrencyMean, s.decodeConcurrencyPeak, limit: settings.decodeConcurrency),
                    pair(s.filterConcurrencyMean, s.filterConcurrencyPeak, limit: settings.filterConcurrency)]
        }
        let legend = "Loads at once in each stage. Slots: loads holding the strategy's slot (mean over the whole run), "
            + "which with a decode queue end when the bytes are in. Network, decode, filter: transfers in flight, decodes and "
            + "filters running, mean over the span the stage was in use. Where a stage has no queue of its own it runs in the slot."
        table = TextTable(title: "Stages", header: Self.header, rows: rows, legend: legend, textColumns: 2)
    }

    public var text: String { table.text }
    var html: String { table.html }
    var markdown: String { table.markdown }
}
