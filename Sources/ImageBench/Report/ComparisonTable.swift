import Foundation

/// The side-by-side table of cells that the terminal and `report.md` show: the metrics a person
/// compares strategies by, one row per cell (with repeats, the median over them; each repeat's
/// row stays in summary.csv), with the best cell of each column marked where the difference is
/// beyond the noise.
public struct ComparisonTable: Sendable {
    let header: [String]
    let rows: [[String]]
    /// For each row, the columns where its cell is best beyond the noise.
    let best: [Set<Int>]
    /// Whether every cell ran once, so only the column with a single-run interval can be marked.
    let singleRuns: Bool
    /// Whether any column can be starred (not in a load table).
    let ranks: Bool
    /// Whether some cell ran more than once: rows are medians and a "runs" column says over how many.
    let repeated: Bool
    let load: Bool

    /// The table of a whole benchmark: the load table under `--clients` or `--no-decode`.
    public init(_ benchmark: BenchmarkResults) {
        let settings = benchmark.plan.settings
        self.init(benchmark.results, traceFrames: Verdict.traceFrames(benchmark), load: settings.clients > 1 || !settings.decodes,
                  rankBy: benchmark.plan.rankBy)
    }

    /// `traceFrames` cuts the trace into the segments mean placeholder time is compared over.
    init(_ results: [RunResult], traceFrames: Int, load: Bool = false, rankBy: RankBy? = nil) {
        let groups = RunResult.byCell(results)
        var columns = load ? Self.loadColumns : Self.columns
        // The metric the verdict ranks by is a column (placeholder time always is).
        if rankBy == .restWait, let after = columns.firstIndex(where: { $0.title == "ph p95 ms" }) {
            columns.insert(Column("rest wait ms", .restWait[.mean], rank: false, Format.tenths), at: after + 1)
        }
        repeated = groups.contains { $0.count > 1 }
        if repeated { columns.insert(Self.runCount, at: 2) }
        // A run that varies policies names each row's values beside its limit.
        let varied = Set(results.flatMap { $0.cell.variant.values.keys }).sorted()
        if !varied.isEmpty {
            columns.insert(Column("policies") { runs in varied.map { $0.label($0.value(of: runs[0])) }.joined(separator: " ") }, at: 2)
        }
        header = columns.map(\.title)
        rows = groups.map { group in
            let runs = group.map(\.summary)
            return columns.map { $0.format(runs) }
        }
        // Only valid cells compete: not the control, not failed, stopped or overloaded runs.
        let cells = groups.filter { CellValidity($0.map(\.summary)).isValid }
        singleRuns = cells.allSatisfy { $0.count == 1 }
        ranks = columns.contains { $0.ranked != nil }
        self.load = load
        var best = Array(repeating: Set<Int>(), count: groups.count)
        if cells.count > 1 {
            for (index, column) in columns.enumerated() {
                guard let metric = column.ranked,
                      let winner = BeyondNoise.winner(metric, cells, traceFrames: traceFrames) else { continue }
                for (row, group) in groups.enumerated() where group[0].cell.name == winner.name {
                    best[row].insert(index)
                }
            }
        }
        self.best = best
    }

    /// What the headers abbreviate, what a row is, and what a star means, under the table.
    var legend: String {
        var lines = [load ? Self.loadColumnsLegend : Self.appColumnsLegend]
        if repeated {
            lines.append("With repeats, a row is a cell: the median over its runs, ± the wider side of the median's 95% interval "
                         + "in ranked columns; each run's row is in summary.csv.")
        }
        if ranks {
            lines.append("* best in its column beyond the noise (ph mean: paired t over trace segments; other columns: 95% intervals "
                         + "over repeats do not overlap)" + (singleRuns ? "; with one run per cell only ph mean can be marked (--repeat 3 marks the others)" : "")
                         + ". Each column is judged alone: the verdict ranks by the one metric its line names, so a star may sit on another cell.")
        }
        return lines.joined(separator: "\n")
    }

    /// Aligned columns for a terminal: text left, numbers right, the best value of each column
    /// marked with `*` (and in bold when `bold` is set, for a colour terminal).
    public func text(bold: Bool = false) -> String {
        let marking = best.contains { !$0.isEmpty }
        let cells = rows.enumerated().map { row, fields in
            fields.enumerated().map { column, field in
                best[row].contains(column) ? field + "*" : field + (marking ? " " : "")
            }
        }
        let widths = header.indices.map { column in cells.reduce(header[column].count) { max($0, $1[column].count) } }
        func line(_ fields: [String], row: Int?) -> String {
            fields.enumerated().map { index, field in
                let pad = String(repeating: " ", count: widths[index] - field.count)
                let padded = index == 0 ? field + pad : pad + field
                if bold, let row, best[row].contains(index) { return "\u{1B}[1m\(padded)\u{1B}[0m" }
                return padded
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        var lines = [line(header, row: nil), rule] + cells.enumerated().map { line($1, row: $0) }
        lines.append(legend)
        return lines.joined(separator: "\n")
    }

    /// A GitHub-flavoured Markdown table, best values in bold, what bold means under it.
    var markdown: String {
        let align = header.indices.map { $0 == 0 ? ":---" : "---:" }
        let cells = rows.enumerated().map { row, fields in
            fields.enumerated().map { column, field in best[row].contains(column) ? "**\(field)**" : field }
        }
        return ([header, align] + cells).map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
            + "\n\n" + legend.replacingOccurrences(of: "* best", with: "Bold: best").replacingOccurrences(of: "\n", with: "\n\n")
    }
}
