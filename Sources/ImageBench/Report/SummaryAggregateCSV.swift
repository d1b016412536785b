import Foundation

/// `summary-aggregate.csv`: one row per strategy × concurrency (× format, the last column), each
/// main metric's median over the repeats and its 95% confidence interval (`_median`, `_ci_low`,
/// `_ci_high`).
struct SummaryAggregateCSV: ReportWriter {
    static let fileName = "summary-aggregate.csv"

    init() {}

    func render(_ results: BenchmarkResults) throws -> String {
        let header = ["strategy", "concurrency", "runs"] + Metric.aggregated.flatMap {
            ["\($0.name)_median", "\($0.name)_ci_low", "\($0.name)_ci_high"]
        } + ["format"]
        var table = CSVTable(header: header)
        for cell in CellAggregate.of(results.results) {
            table.append([cell.strategy, String(cell.concurrency), String(cell.runs)] + cell.estimates.flatMap {
                [$0.estimate.median, $0.estimate.low, $0.estimate.high].map { RunSummary.Value.real($0).formatted }
            } + [cell.format])
        }
        return table.rendered
    }
}
