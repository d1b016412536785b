import Foundation

/// The side-by-side table of runs that the terminal and `report.md` show: the metrics a person
/// compares strategies by, one row per run.
public struct ComparisonTable: Sendable {
    public let header: [String]
    public let rows: [[String]]

    public init(_ results: [RunResult]) {
        header = ["strategy", "limit", "#", "requests", "mem hit", "network", "merged", "cancel q/in", "MB down",
                  "MB saved", "p50 ms", "p95 ms", "p99 ms", "never shown", "placeholder", "hitch ms/s",
                  "conc mean/peak", "errors"]
        rows = results.map { result in
            let s = result.summary
            return [
                s.strategy, String(s.concurrency), String(s.repetition), String(s.requests),
                Self.percent(s.memoryHitRate), String(s.networkFetches), String(s.merged),
                "\(s.cancelledQueued)/\(s.cancelledInflight)", Self.megabytes(s.bytesDownloaded),
                Self.megabytes(s.bytesSaved), Self.number(s.latencyP50Ms), Self.number(s.latencyP95Ms),
                Self.number(s.latencyP99Ms), String(s.neverDisplayed), Self.percent(s.placeholderRatio),
                String(format: "%.1f", s.hitchMsPerS),
                String(format: "%.1f/%d", s.achievedConcurrencyMean, s.achievedConcurrencyPeak), String(s.errors),
            ]
        }
    }

    /// Aligned columns for a terminal: text left, numbers right.
    public var text: String {
        let widths = header.indices.map { column in rows.reduce(header[column].count) { max($0, $1[column].count) } }
        func line(_ fields: [String]) -> String {
            fields.enumerated().map { index, field in
                let pad = String(repeating: " ", count: widths[index] - field.count)
                return index == 0 ? field + pad : pad + field
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    /// A GitHub-flavoured Markdown table.
    public var markdown: String {
        let align = header.indices.map { $0 == 0 ? ":---" : "---:" }
        return ([header, align] + rows).map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
    }

    static func percent(_ ratio: Double) -> String { String(format: "%.1f%%", ratio * 100) }
    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_000_000) }
    static func number(_ value: Double) -> String { String(format: "%.0f", value) }
}
