/// `summary.csv`: one row per strategy × concurrency × repeat, every metric of the design.
struct SummaryCSV: ReportWriter {
    static let fileName = "summary.csv"

    init() {}

    func render(_ results: BenchmarkResults) throws -> String {
        guard let first = results.results.first else { return "" }
        var table = CSVTable(header: first.summary.fields.map(\.name))
        for result in results.results { table.append(result.summary.fields.map(\.value.formatted)) }
        return table.rendered
    }
}
