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

extension ClientsCSV {
    /// One row read back: its cell (by the values of the policies the run varied), repeat, user
    /// and summary.
    struct Row: Sendable {
        let cell: ResultCell
        let repetition: Int
        let client: Int
        let summary: RunSummary
    }

    /// What `render` wrote, read back (`imgbench merge`); `varied`: the policies that tell the
    /// run's cells apart. An error names the row (`clients.csv:3: no client`).
    static func read(_ text: String, varied: [PolicyDimension]) throws(RunSummary.RowError) -> [Row] {
        guard let (_, rows) = CSVTable.records(text) else { throw RunSummary.RowError(description: "\(fileName) is empty") }
        var read: [Row] = []
        for row in rows {
            do throws(RunSummary.RowError) {
                let summary = try RunSummary(row: row.fields)
                guard let client = Int(row.fields["client"] ?? "") else { throw RunSummary.RowError(description: "no client") }
                read.append(Row(cell: ResultCell(summary, varied: varied), repetition: summary.repetition, client: client, summary: summary))
            } catch {
                throw RunSummary.RowError(description: "\(fileName):\(row.number): \(error.description)")
            }
        }
        return read
    }
}
