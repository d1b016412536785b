/// `imgbench run --threshold 'display_p95_ms < 100'`: limits a single run must keep, as k6's
/// thresholds are, for a CI step or a load test that needs no baseline. The expression language is
/// the gate's (`Threshold`), limits only: a change (+10%) needs a baseline, which is `imgbench gate`.
/// Every run of the matrix (strategy × limit × repeat, users and shards combined) must keep every
/// limit; each check reports the run nearest to breaking it, or the first that broke it.
public struct ThresholdCheck: Sendable, Equatable {
    let threshold: String
    let metric: String
    let passed: Bool
    /// The worst value over the runs in the metric's direction of failure, and its run.
    let worst: Double
    let run: String

    var line: String {
        "\(passed ? "pass" : "FAIL")  \(threshold)  (worst \(Format.compact(worst)), \(run))"
    }

    var jsonObject: [String: Any] {
        ["threshold": threshold, "metric": metric, "passed": passed, "worst": worst.isFinite ? worst : 0, "run": run]
    }
}

public enum RunThresholds {
    /// `--threshold` texts as thresholds; a change against a baseline is refused with the way to it.
    public static func parse(_ texts: [String]) throws(Threshold.ParseError) -> [Threshold] {
        try texts.map { text throws(Threshold.ParseError) in
            let threshold = try Threshold(parsing: text)
            guard case .limit = threshold.rule else {
                throw Threshold.ParseError(description: "--threshold '\(text)': a single run takes limits ('\(threshold.metric) < 250'); "
                                           + "a change against a baseline is imgbench gate's")
            }
            return threshold
        }
    }

    /// The checks as listed under the table ("" when there are none).
    public static func listing(_ checks: [ThresholdCheck]) -> String {
        checks.isEmpty ? "" : "\n\nThresholds:\n" + checks.map { "  " + $0.line }.joined(separator: "\n")
    }

    /// What broke, for the command's one-line error; nil when every limit was kept.
    public static func brokenMessage(_ checks: [ThresholdCheck]) -> String? {
        let broken = checks.filter { !$0.passed }
        guard !broken.isEmpty else { return nil }
        return "threshold broken: " + broken.map { "\($0.threshold) (\(Format.compact($0.worst)), \($0.run))" }.joined(separator: "; ")
    }

    /// Each threshold against every run (or, for a `per_second.` column, every second of every
    /// run). No run, no check (a stopped run passes nothing: its checks are not made).
    public static func evaluate(_ thresholds: [Threshold], on results: [RunResult]) -> [ThresholdCheck] {
        thresholds.compactMap { threshold in
            guard case .limit(let comparison, _) = threshold.rule else { return nil }
            func name(_ cell: RunCell) -> String { "\(cell.name) #\(cell.repetition)" }
            let values: [(run: String, value: Double)]
            if let metric = Metric.named(threshold.metric) {
                values = results.compactMap { result in metric.number(of: result.summary).map { (name(result.cell), $0) } }
            } else if let perSecond = PerSecondMetric.named(threshold.metric) {
                values = results.flatMap { result in
                    perSecond.values(in: result.timeline).map { ("\(name(result.cell)), second \($0.second)", $0.value) }
                }
            } else {
                return nil
            }
            // The value furthest towards failing: the largest under < and <=, the smallest under > and >=.
            let failsHigh = comparison.hasPrefix("<")
            guard let worst = values.max(by: { failsHigh ? $0.value < $1.value : $0.value > $1.value }) else { return nil }
            let failed = values.first { threshold.exceeded(baseline: nil, current: $0.value) }
            let shown = failed ?? worst
            return ThresholdCheck(threshold: threshold.description, metric: threshold.metric, passed: failed == nil,
                                  worst: shown.value, run: shown.run)
        }
    }
}
