/// `clients.csv`: with `--clients`, one row per simulated user per strategy × concurrency ×
/// repeat (summary.csv's row for the cell combines them); a single user's run has one row per
/// cell, the same as summary.csv's with `client` 0.
struct ClientsCSV: ReportWriter {
    static let fileName = "clients.csv"

    init() {}

    func render(_ results: BenchmarkResults) throws -> String {
        guard let first = results.results.first else { return "" }
        var table = CSVTable(header: ["client"] + first.summary.fields.map(\.name))
        for result in results.results {
            let clients = result.clients.isEmpty ? [(client: 0, summary: result.summary)] : result.clients
            for (client, summary) in clients { table.append([String(client)] + summary.fields.map(\.value.formatted)) }
        }
        return table.rendered
    }
}
