/// A rule for one metric in `imgbench gate`:
/// - `display_p95_ms < 250`: an absolute limit on the current value (also `<=`, `>`, `>=`; a ratio
///   may be given as a percentage: `error_rate < 1%`);
/// - `display_p95_ms +10%`: the current value may be at most 10% worse than the baseline;
/// - `memory_hit_rate -0.02`: at most 0.02 worse, in the metric's own unit.
/// "Worse" follows the metric's direction in the catalog (higher latency, lower hit rate), whatever
/// the sign. A metric with no better direction (requests, merged) takes limits only.
public struct Threshold: Sendable, Equatable, CustomStringConvertible {
    enum Rule: Sendable, Equatable {
        case limit(comparison: String, value: Double)
        case relative(fraction: Double)
        case absolute(change: Double)
        /// A virtual gate's count: any change at all (the runs are deterministic).
        case unchanged
    }

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    let metric: String
    let rule: Rule
    /// Nil for a metric that is neither better nor worse when larger: only a limit applies.
    let direction: MetricDirection?
    public let description: String

    /// A virtual gate's check that `metric` (a count) is exactly the baseline's.
    init(unchanged metric: Metric) {
        self.metric = metric.name
        rule = .unchanged
        direction = metric.better
        description = "\(metric.name) unchanged"
    }

    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let name = parts.first else { throw ParseError(description: "empty threshold") }
        // Any metric of the catalog but the ones that name a run; its direction is the catalog's.
        // Or a time-series column held every second (limits only).
        let perSecond = PerSecondMetric.named(name)
        let measured = Metric.named(name).flatMap { $0.identifies || !$0.isNumber ? nil : $0 }
        guard measured != nil || perSecond != nil else {
            let names = Metric.catalog.filter { !$0.identifies && $0.isNumber }.map(\.name) + PerSecondMetric.names
            // A near miss gets its name; otherwise the whole list, since nothing else would help.
            // Former names count as near misses too, and are answered with today's name.
            let formerNames = Metric.catalog.compactMap(\.formerName)
            if let guess = Spelling.closest(to: name, among: names + formerNames).map(Metric.currentName) {
                throw ParseError(description: "unknown metric '\(name)' in threshold '\(text)'. Did you mean '\(guess)'?")
            }
            throw ParseError(description: "unknown metric '\(name)' in threshold '\(text)' (valid: \(names.sorted().joined(separator: ", ")))")
        }
        guard perSecond == nil || parts.count == 3 else {
            throw ParseError(description: "threshold '\(text)': a per-second column takes a limit, like '\(name) < 50'")
        }
        // A former name (latency_p95_ms) checks today's column (display_p95_ms), and says so by
        // printing today's name.
        metric = measured?.name ?? name
        direction = measured?.better ?? perSecond?.better
        description = ([metric] + parts.dropFirst()).joined(separator: " ")
        switch parts.count {
        case 3 where ["<", "<=", ">", ">="].contains(parts[1]):
            // A ratio may be given as a percentage, as k6 users write it: 'error_rate < 1%'.
            let percent = parts[2].hasSuffix("%")
            guard let number = Double(percent ? String(parts[2].dropLast()) : parts[2]), number.isFinite else {
                throw ParseError(description: "threshold '\(text)': '\(parts[2])' is not a number")
            }
            guard !percent || measured?.unit == "ratio" else {
                throw ParseError(description: "threshold '\(text)': a percentage limit applies to ratios (error_rate, memory_hit_rate, …); \(name) is in \(measured?.unit ?? "its own unit")")
            }
            rule = .limit(comparison: parts[1], value: percent ? number / 100 : number)
        case 2 where direction == nil:
            throw ParseError(description: "threshold '\(text)': \(name) is neither better nor worse when larger; give a limit like '\(name) < 100'")
        case 2:
            let change = parts[1]
            guard change.hasPrefix("+") || change.hasPrefix("-") else {
                throw ParseError(description: "threshold '\(text)': expected a change like +10% or -0.02, or a limit like < 250")
            }
            if change.hasSuffix("%") {
                guard let percent = Double(change.dropFirst().dropLast()), percent >= 0 else {
                    throw ParseError(description: "threshold '\(text)': '\(change)' is not a percentage")
                }
                rule = .relative(fraction: percent / 100)
            } else {
                guard let amount = Double(change.dropFirst()), amount >= 0 else {
                    throw ParseError(description: "threshold '\(text)': '\(change)' is not a number")
                }
                rule = .absolute(change: amount)
            }
        default:
            throw ParseError(description: "threshold '\(text)': write 'metric < 250', 'metric +10%' or 'metric -0.02'")
        }
    }

    /// A limit on every second of a run (`per_second.`): `imgbench run --threshold`'s only; the
    /// gate compares whole runs.
    public var isPerSecond: Bool { PerSecondMetric.named(metric) != nil }

    /// How much worse `current` is than `baseline` in this metric's direction (negative: better).
    func worsening(baseline: Double, current: Double) -> Double {
        direction == .higherIsBetter ? baseline - current : current - baseline
    }

    /// Whether the medians break the rule.
    func exceeded(baseline: Double?, current: Double) -> Bool {
        switch rule {
        case .limit(let comparison, let value):
            switch comparison {
            case "<": return !(current < value)
            case "<=": return !(current <= value)
            case ">": return !(current > value)
            default: return !(current >= value)
            }
        case .relative(let fraction):
            guard let baseline else { return false }
            let worse = worsening(baseline: baseline, current: current)
            return baseline == 0 ? worse > 0 : worse / abs(baseline) > fraction
        case .absolute(let change):
            guard let baseline else { return false }
            return worsening(baseline: baseline, current: current) > change
        case .unchanged:
            return baseline != current
        }
    }
}
