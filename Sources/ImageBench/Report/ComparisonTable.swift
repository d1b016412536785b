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

    /// Columns both tables show.
    static let cancellations = Column("cancel q/in") { "\($0.cancelledQueued)/\($0.cancelledInflight)" }
    static let concurrency = Column("conc mean/peak") { "\(Format.tenths($0.achievedConcurrencyMean))/\($0.achievedConcurrencyPeak)" }

    static let columns: [Column] = [
        Column("strategy") { summary in
            // With --formats, the format is part of the cell: "threads avif".
            let name = CellName.names(summary.format) ? "\(summary.strategy) \(summary.format)" : summary.strategy
            return switch CellValidity(summary) {
            case .valid: name
            case .control: name + " (control)"
            case .invalid: name + " (not ranked)"
            }
        }, Column("limit", .concurrency), Column("#", .repetition),
        // Placeholder time covers every request (n = requests); display latency the shown ones (n = shown).
        Column("requests", .requests), Column("ph mean ms", .placeholderMean, Format.tenths), Column("ph p95 ms", .placeholderP95),
        Column("mem hit", .memoryHitRate, Format.percent), Column("network", .networkFetches, rank: false),
        Column("merged", .merged), cancellations,
        // Costs are not "less is best" (doing less is not winning): the verdict weighs them per image.
        Column("MB down", .bytesDownloaded, rank: false, Format.megabytes), Column("max MB saved", .bytesSaved, rank: false, Format.megabytes),
        Column("shown", .displayed, rank: false), Column("p50 ms", .latencyP50), Column("p95 ms", .latencyP95),
        Column("p99 ms", .latencyP99),
        Column("never shown", .neverDisplayed), Column("placeholder", .placeholderRatio, Format.percent),
        Column("hitch ms/s", .hitchMsPerS, Format.tenths),
        concurrency,
        Column("errors", .errors),
    ]

    /// Under `--clients` or `--no-decode` the server is what is tested: its side first (requests
    /// per second, errors, time to first byte), then what users saw that still means something
    /// there; placeholder and hitch columns are left out. Nothing is starred: a load table ranks
    /// no strategy.
    static let loadColumns: [Column] = [
        columns[0], Column("limit", .concurrency), Column("#", .repetition),
        Column("http req", .httpRequests, rank: false), Column("req/s", .requestsPerS, rank: false),
        Column("errors", .errors, rank: false), Column("error rate", .errorRate, rank: false, Format.percent),
        Column("ttfb p50 ms", .ttfbP50, rank: false, Format.tenths), Column("ttfb p90 ms", .ttfbP90, rank: false, Format.tenths),
        Column("ttfb p95 ms", .ttfbP95, rank: false, Format.tenths), Column("ttfb p99 ms", .ttfbP99, rank: false, Format.tenths),
        Column("ttfb max ms", .ttfbMax, rank: false, Format.tenths),
        Column("request p50 ms", .requestP50, rank: false, Format.tenths), Column("request p99 ms", .requestP99, rank: false, Format.tenths),
        Column("MB down", .bytesDownloaded, rank: false, Format.megabytes),
        Column("requests", .requests, rank: false), Column("mem hit", .memoryHitRate, rank: false, Format.percent),
        cancellations,
        concurrency,
        Column("host late", .hostLateFrames, rank: false),
    ]

    public let header: [String]
    public let rows: [[String]]
    /// For each row, the columns where its cell is best beyond the noise.
    public let best: [Set<Int>]
    /// Whether every cell ran once, so only the column with a single-run interval can be marked.
    let singleRuns: Bool
    /// Whether any column can be starred (not in a load table).
    let ranks: Bool

    /// The table of a whole benchmark: the load table under `--clients` or `--no-decode`.
    public init(_ benchmark: BenchmarkResults) {
        let settings = benchmark.plan.settings
        self.init(benchmark.results, traceFrames: Verdict.traceFrames(benchmark), load: settings.clients > 1 || !settings.decodes)
    }

    /// `traceFrames` cuts the trace into the segments mean placeholder time is compared over.
    public init(_ results: [RunResult], traceFrames: Int, load: Bool = false) {
        let summaries = results.map(\.summary)
        var columns = load ? Self.loadColumns : Self.columns
        // A run that varies policies names each row's values beside its limit.
        let varied = Set(results.flatMap { $0.cell.variant.values.keys }).sorted()
        if !varied.isEmpty {
            columns.insert(Column("policies") { summary in varied.map { $0.label($0.value(of: summary)) }.joined(separator: " ") }, at: 2)
        }
        header = columns.map(\.title)
        rows = summaries.map { summary in columns.map { $0.format(summary) } }
        // Only valid cells compete: not the control, not failed, stopped or overloaded runs.
        let cells = RunResult.byCell(results).filter { CellValidity($0.map(\.summary)).isValid }
        singleRuns = cells.allSatisfy { $0.count == 1 }
        ranks = columns.contains { $0.ranked != nil }
        var best = Array(repeating: Set<Int>(), count: summaries.count)
        if cells.count > 1 {
            for (index, column) in columns.enumerated() {
                guard let metric = column.ranked,
                      let winner = BeyondNoise.winner(metric, cells, traceFrames: traceFrames) else { continue }
                for (row, result) in results.enumerated() where result.cell.name == winner.name {
                    best[row].insert(index)
                }
            }
        }
        self.best = best
    }

    /// What a star means, under the table (nothing when nothing can be starred).
    var legend: String {
        guard ranks else { return "" }
        return "* best in its column beyond the noise (ph mean: paired t over trace segments; other columns: 95% intervals over repeats "
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
        if !legend.isEmpty { lines.append(legend) }
        return lines.joined(separator: "\n")
    }

    /// A GitHub-flavoured Markdown table, best values in bold, what bold means under it.
    public var markdown: String {
        let align = header.indices.map { $0 == 0 ? ":---" : "---:" }
        let cells = rows.enumerated().map { row, fields in
            fields.enumerated().map { column, field in best[row].contains(column) ? "**\(field)**" : field }
        }
        return ([header, align] + cells).map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
            + (legend.isEmpty ? "" : "\n\n" + legend.replacingOccurrences(of: "* best", with: "Bold: best"))
    }
}
