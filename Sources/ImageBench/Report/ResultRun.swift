/// One run read back from a row of summary.csv: its cell and repeat as values, its metrics by
/// column name. The text of every column is kept as written: compare and gate read columns no
/// `Metric` of this version knows (a newer file's), tell a missing column from a zero (a baseline
/// recorded before the metric existed), and A/B mode writes the rows again unchanged.
public struct ResultRun: Sendable {
    let cell: ResultCell
    /// 1, 2, … within the cell; 0 when the file does not number its repeats.
    private(set) var repetition: Int
    /// Column name (today's spelling) → the text the file has.
    private var fields: [String: String]

    /// A row by column name; `varied`: the policies whose column tells this file's cells apart.
    init(fields: [String: String], varied: [PolicyDimension]) throws(RunSummary.RowError) {
        let concurrency = fields["concurrency"] ?? ""
        guard let limit = Int(concurrency) else { throw RunSummary.RowError(description: "concurrency is not a number: '\(concurrency)'") }
        var repetition = 0
        if let text = fields["repeat"] {
            guard let number = Int(text) else { throw RunSummary.RowError(description: "repeat is not a number: '\(text)'") }
            repetition = number
        }
        cell = ResultCell(strategy: fields["strategy"] ?? "", concurrency: limit, format: fields["format"] ?? "",
                          variant: PolicyVariant(varied.reduce(into: [:]) { $0[$1] = fields[$1.rawValue] }))
        self.repetition = repetition
        self.fields = fields
    }

    /// A column's text as written; nil when the file has no such column.
    func text(_ column: String) -> String? { fields[column] }

    /// A metric's value; nil when the column is missing or not a number.
    func value(_ metric: String) -> Double? { fields[metric].flatMap(Double.init) }

    /// The run as a `RunSummary` (for what judges it whole: `CellValidity`).
    func summary() throws(RunSummary.RowError) -> RunSummary { try RunSummary(row: fields) }

    /// The same run as repeat `repetition` of its cell (A/B rounds, each one repeat, joined).
    func renumbered(_ repetition: Int) -> ResultRun {
        var run = self
        run.repetition = repetition
        run.fields["repeat"] = String(repetition)
        return run
    }
}
