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

    /// Runs read back, written again under `header` (A/B mode's joined rounds): each column as read.
    static func render(header: [String], runs: [ResultRun]) -> String {
        var table = CSVTable(header: header)
        for run in runs { table.append(header.map { run.text($0) ?? "" }) }
        return table.rendered
    }

    /// What `render` wrote, read back: the header (columns renamed since under today's names:
    /// latency_p95_ms is display_p95_ms) and a run per row, its cell named by the policies whose
    /// column holds more than one value (the run varied them). `file` names the file in errors.
    static func read(_ text: String, file: String) throws(ResultsDirectory.LoadError) -> (header: [String], runs: [ResultRun]) {
        guard let (header, rows) = CSVTable.records(text, rename: Metric.currentName),
              header.contains("strategy"), header.contains("concurrency") else {
            throw ResultsDirectory.LoadError(description: "\(file) has no strategy and concurrency columns")
        }
        let varied = PolicyDimension.allCases.filter { dimension in Set(rows.compactMap { $0.fields[dimension.rawValue] }).count > 1 }
        var runs: [ResultRun] = []
        for row in rows {
            do {
                runs.append(try ResultRun(fields: row.fields, varied: varied))
            } catch {
                throw ResultsDirectory.LoadError(description: "\(file):\(row.number): \(error.description)")
            }
        }
        return (header, runs)
    }
}
