import Foundation

/// The side-by-side table of runs that the terminal and `report.md` show: the metrics a person
/// compares strategies by, one row per run, with the best value of each column marked.
public struct ComparisonTable: Sendable {
    /// Which way a column improves.
    enum Better: Sendable { case lower, higher }

    struct Column: Sendable {
        let title: String
        let better: Better?
        let value: @Sendable (RunSummary) -> Double
        let format: @Sendable (RunSummary) -> String
    }

    static let columns: [Column] = [
        Column(title: "strategy", better: nil, value: { _ in 0 }, format: { $0.strategy }),
        Column(title: "limit", better: nil, value: { Double($0.concurrency) }, format: { String($0.concurrency) }),
        Column(title: "#", better: nil, value: { Double($0.repetition) }, format: { String($0.repetition) }),
        Column(title: "requests", better: nil, value: { Double($0.requests) }, format: { String($0.requests) }),
        Column(title: "mem hit", better: .higher, value: { $0.memoryHitRate }, format: { percent($0.memoryHitRate) }),
        Column(title: "network", better: .lower, value: { Double($0.networkFetches) }, format: { String($0.networkFetches) }),
        Column(title: "merged", better: nil, value: { Double($0.merged) }, format: { String($0.merged) }),
        Column(title: "cancel q/in", better: nil, value: { Double($0.cancelledQueued + $0.cancelledInflight) },
               format: { "\($0.cancelledQueued)/\($0.cancelledInflight)" }),
        Column(title: "MB down", better: .lower, value: { Double($0.bytesDownloaded) }, format: { megabytes($0.bytesDownloaded) }),
        Column(title: "MB saved", better: nil, value: { Double($0.bytesSaved) }, format: { megabytes($0.bytesSaved) }),
        Column(title: "p50 ms", better: .lower, value: { $0.latencyP50Ms }, format: { number($0.latencyP50Ms) }),
        Column(title: "p95 ms", better: .lower, value: { $0.latencyP95Ms }, format: { number($0.latencyP95Ms) }),
        Column(title: "p99 ms", better: .lower, value: { $0.latencyP99Ms }, format: { number($0.latencyP99Ms) }),
        Column(title: "never shown", better: .lower, value: { Double($0.neverDisplayed) }, format: { String($0.neverDisplayed) }),
        Column(title: "placeholder", better: .lower, value: { $0.placeholderRatio }, format: { percent($0.placeholderRatio) }),
        Column(title: "hitch ms/s", better: .lower, value: { $0.hitchMsPerS }, format: { String(format: "%.1f", $0.hitchMsPerS) }),
        Column(title: "conc mean/peak", better: nil, value: { $0.achievedConcurrencyMean },
               format: { String(format: "%.1f/%d", $0.achievedConcurrencyMean, $0.achievedConcurrencyPeak) }),
        Column(title: "errors", better: .lower, value: { Double($0.errors) }, format: { String($0.errors) }),
    ]

    public let header: [String]
    public let rows: [[String]]
    /// For each row, the columns where it holds the best value (ties all count).
    public let best: [Set<Int>]

    public init(_ results: [RunResult]) {
        let summaries = results.map(\.summary)
        header = Self.columns.map(\.title)
        rows = summaries.map { summary in Self.columns.map { $0.format(summary) } }
        var best = Array(repeating: Set<Int>(), count: summaries.count)
        if summaries.count > 1 {
            for (index, column) in Self.columns.enumerated() {
                guard let better = column.better else { continue }
                let values = summaries.map(column.value)
                let target = better == .lower ? values.min()! : values.max()!
                // A column where every row is equal has no winner worth marking.
                guard values.contains(where: { $0 != target }) else { continue }
                for (row, value) in values.enumerated() where value == target { best[row].insert(index) }
            }
        }
        self.best = best
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
        if marking { lines.append("* best in its column") }
        return lines.joined(separator: "\n")
    }

    /// A GitHub-flavoured Markdown table, best values in bold.
    public var markdown: String {
        let align = header.indices.map { $0 == 0 ? ":---" : "---:" }
        let cells = rows.enumerated().map { row, fields in
            fields.enumerated().map { column, field in best[row].contains(column) ? "**\(field)**" : field }
        }
        return ([header, align] + cells).map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
    }

    static func percent(_ ratio: Double) -> String { String(format: "%.1f%%", ratio * 100) }
    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_000_000) }
    static func number(_ value: Double) -> String { String(format: "%.0f", value) }
}
