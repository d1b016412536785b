import Foundation

/// With `--formats`: one row per format of each strategy × limit, what the format costs and what
/// the user sees: downloaded and CPU per displayed image, decode time per megapixel, placeholder
/// time and display latency, each with its 95% interval. Empty with one format.
public struct FormatTable: Sendable {
    static let header = ["cell", "format", "kB/image", "decode ms/MP p50", "decode ms/MP p95", "placeholder mean ms",
                                "display p50 ms", "display p95 ms", "CPU ms/image"]
    let rows: [[String]]

    public init(_ results: BenchmarkResults) {
        guard Set(results.results.map(\.summary.format)).count > 1 else {
            rows = []
            return
        }
        let verdict = Verdict(results)
        rows = zip(verdict.cells, RunResult.byCell(results.results)).map { cell, runs in
            var decode = LatencyHistogram(), latency = LatencyHistogram()
            for run in runs {
                decode.add(run.distributions.decodePerMegapixel)
                latency.add(run.latency)
            }
            let placeholder = cell.placeholder.interval.map { String(format: "%.1f (%.1f–%.1f)", cell.placeholder.overall, $0.low, $0.high) }
                ?? String(format: "%.1f (no interval)", cell.placeholder.overall)
            let kilobytes = Self.overRepeats(cell.bytesPerImage / 1e3, runs, digits: "%.1f") {
                Double($0.bytesDownloaded) / Double(max(1, $0.displayed)) / 1e3
            }
            let cpu = Self.overRepeats(cell.cpuPerImage * 1e3, runs, digits: "%.2f") {
                ($0.cpuUserS + $0.cpuSysS) / Double(max(1, $0.displayed)) * 1e3
            }
            return ["\(cell.strategy) ×\(cell.concurrency)" + (cell.validity.isValid ? "" : " (not ranked)"), cell.format, kilobytes,
                    Self.percentile(decode, 50), Self.percentile(decode, 95), placeholder,
                    Self.percentile(latency, 50), Self.percentile(latency, 95), cpu]
        }
    }

    /// A cost per displayed image: the pooled value, and with repeats the 95% interval of the
    /// median of the runs' values (bootstrap, as summary-aggregate.csv's).
    static func overRepeats(_ pooled: Double, _ runs: [RunResult], digits: String, _ value: (RunSummary) -> Double) -> String {
        guard runs.count > 1 else { return String(format: digits, pooled) }
        let estimate = RepeatStatistics.median(runs.map { value($0.summary) })
        return String(format: "\(digits) (\(digits)–\(digits))", pooled, estimate.low, estimate.high)
    }

    /// "4.21 (4.10–4.35)": the value and its order-statistic interval; "–" without samples.
    static func percentile(_ histogram: LatencyHistogram, _ percentile: Double) -> String {
        guard let interval = histogram.interval(atPercentile: percentile) else { return "–" }
        let value = histogram.milliseconds(atPercentile: percentile)
        let digits = value < 10 ? "%.2f" : "%.1f"
        return String(format: "\(digits) (\(digits)–\(digits))", value, interval.low, interval.high)
    }

    static let legend = "Per displayed image: kB downloaded and CPU (the process's, over every image shown), with repeats the "
        + "interval of the runs' median (bootstrap). Decode: ms per megapixel of the file, every image decoded. Brackets: 95% "
        + "intervals; placeholder time's by batch means over trace "
        + "segments (as the verdict's), the percentiles' by order statistics (they assume independent samples, which display "
        + "latencies within a run are not: read those as the least uncertainty)."

    var table: TextTable { TextTable(title: "Formats", header: Self.header, rows: rows, legend: Self.legend, textColumns: 2) }
    public var text: String { table.text }
    /// For report.html: the same table, headed and with its legend.
    var html: String { table.html }
    var markdown: String { table.markdown }
}
