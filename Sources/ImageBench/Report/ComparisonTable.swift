import Foundation

/// The side-by-side table of runs that the terminal and `report.md` show: the metrics a person
/// compares strategies by, one row per run, with the best cell of each column marked where the
/// difference is beyond the noise.
public struct ComparisonTable: Sendable {
    struct Column: Sendable {
        let title: String
        /// The metric whose direction (from the catalog) marks the best value; nil where nobody ranks.
        let ranked: Metric?
        let format: @Sendable (RunSummary) -> String

        /// A column showing one metric; `rank` false shows it without marking a best.
        init(_ title: String, _ metric: Metric, rank: Bool = true, _ show: @escaping @Sendable (Double) -> String = Format.whole) {
            self.title = title
            ranked = rank && metric.better != nil ? metric : nil
            format = { show(metric.number(of: $0) ?? 0) }
        }

        init(_ title: String, format: @escaping @Sendable (RunSummary) -> String) {
            self.title = title
            ranked = nil
            self.format = format
        }
    }

    static let columns: [Column] = [
        Column("strategy") { summary in
            switch CellValidity(summary) {
            case .valid: summary.strategy
            case .control: summary.strategy + " (control)"
            case .invalid: summary.strategy + " (not ranked)"
            }
        }, Column("limit", .concurrency), Column("#", .repetition),
        // Placeholder time covers every request (n = requests); display latency the shown ones (n = shown).
        Column("requests", .requests), Column("ph mean ms", .placeholderMean, Format.tenths), Column("ph p95 ms", .placeholderP95),
        Column("mem hit", .memoryHitRate, Format.percent), Column("network", .networkFetches, rank: false),
        Column("merged", .merged), Column("cancel q/in") { "\($0.cancelledQueued)/\($0.cancelledInflight)" },
        // Costs are not "less is best" (doing less is not winning): the verdict weighs them per image.
        Column("MB down", .bytesDownloaded, rank: false, Format.megabytes), Column("MB saved", .bytesSaved, rank: false, Format.megabytes),
        Column("shown", .displayed, rank: false), Column("p50 ms", .latencyP50), Column("p95 ms", .latencyP95),
        Column("p99 ms", .latencyP99),
        Column("never shown", .neverDisplayed), Column("placeholder", .placeholderRatio, Format.percent),
        Column("hitch ms/s", .hitchMsPerS, Format.tenths),
        Column("conc mean/peak") { "\(Format.tenths($0.achievedConcurrencyMean))/\($0.achievedConcurrencyPeak)" },
        Column("errors", .errors),
    ]

    public let header: [String]
    public let rows: [[String]]
    /// For each row, the columns where its cell is best beyond the noise.
    public let best: [Set<Int>]
    /// Whether every cell ran once, so only the column with a single-run interval can be marked.
    let singleRuns: Bool

    /// The table of a whole benchmark.
    public init(_ benchmark: BenchmarkResults) {
        self.init(benchmark.results, traceFrames: Verdict.traceFrames(benchmark))
    }

    /// `traceFrames` cuts the trace into the segments mean placeholder time is compared over.
    public init(_ results: [RunResult], traceFrames: Int) {
        let summaries = results.map(\.summary)
        header = Self.columns.map(\.title)
        rows = summaries.map { summary in Self.columns.map { $0.format(summary) } }
        // Only valid cells compete: not the control, not failed, stopped or overloaded runs.
        let cells = RunResult.byCell(results).filter { CellValidity($0.map(\.summary)).isValid }
        singleRuns = cells.allSatisfy { $0.count == 1 }
        var best = Array(repeating: Set<Int>(), count: summaries.count)
        if cells.count > 1 {
            for (index, column) in Self.columns.enumerated() {
                guard let metric = column.ranked,
                      let winner = BeyondNoise.winner(metric, cells, traceFrames: traceFrames) else { continue }
                for (row, result) in results.enumerated() where result.cell.strategy == winner.strategy && result.cell.concurrency == winner.concurrency {
                    best[row].insert(index)
                }
            }
        }
        self.best = best
    }

    /// What a star means, under the table.
    var legend: String {
        "* best in its column beyond the noise (ph mean: paired t over trace segments; other columns: 95% intervals over repeats "
            + "do not overlap)" + (singleRuns ? "; with one run per cell only ph mean can be marked (--repeat 3 marks the others)" : "")
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
    public var markdown: String {
        let align = header.indices.map { $0 == 0 ? ":---" : "---:" }
        let cells = rows.enumerated().map { row, fields in
            fields.enumerated().map { column, field in best[row].contains(column) ? "**\(field)**" : field }
        }
        return ([header, align] + cells).map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
            + "\n\n" + legend.replacingOccurrences(of: "* best", with: "Bold: best")
    }
}
