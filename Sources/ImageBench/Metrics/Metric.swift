/// Which way a metric gets better.
enum MetricDirection: Sendable, Equatable {
    case lowerIsBetter, higherIsBetter
}

/// How the runs of several simulated users (`--clients`) or of several shard processes
/// (`imgbench merge`) of one cell become one value.
enum MetricCombination: Sendable, Equatable {
    /// It names the run (strategy, limit, network): every part has the same value.
    case same
    /// Counts, and work done per second: the parts' work adds up.
    case sum
    /// Measured per process (CPU, peak memory) or over the whole span (wall time): the largest.
    case largest
    /// Each user has a main loop of its own: the users' mean.
    case mean
    /// A share of each user's screen: the mean weighted by each user's requests.
    case requestWeightedMean
    /// Derived from the combined totals (hit rates) or the merged histograms (percentiles).
    case recomputed
    /// Counts per key (`404:8250;timeout:3`): summed key by key.
    case sumPerKey
}

/// One metric of a run: one column of summary.csv, with everything every report, aggregation and
/// the gate need to know about it. The list of them is `Metric.catalog`.
struct Metric: Sendable, CustomStringConvertible {
    /// How the value is read and written on a `RunSummary`.
    enum Field: Sendable {
        case text(WritableKeyPath<RunSummary, String> & Sendable)
        case integer(WritableKeyPath<RunSummary, Int> & Sendable)
        case real(WritableKeyPath<RunSummary, Double> & Sendable)
        case flag(WritableKeyPath<RunSummary, Bool> & Sendable)
        /// One statistic of a distribution family (`display_p95_ms`: the display summary's p95);
        /// `n` is an integer, every other statistic a real.
        case statistic(WritableKeyPath<RunSummary, DistributionSummary> & Sendable, DistributionSummary.Statistic)
        /// Computed from other fields; not stored, never read back.
        case derived(@Sendable (RunSummary) -> Double)
    }

    /// The column name in summary.csv and clients.csv, the key in summary.json, the name a gate
    /// threshold uses.
    let name: String
    /// The unit, for people (the name carries it too where the design asks: `_ms`, `_s`, `_mb`).
    let unit: String
    /// Nil where more is neither better nor worse (it names the run, or describes the workload).
    let better: MetricDirection?
    let combination: MetricCombination
    let field: Field
    /// A column results directories written before 0.3 lack: reading one leaves it for
    /// `RunSummary(row:)` to fill from the columns they have.
    let since03: Bool
    /// The column's name before 0.6 (`latency_p95_ms` for `display_p95_ms`), still read from older
    /// results directories and accepted in thresholds, so a committed baseline keeps working.
    let formerName: String?

    init(_ name: String, _ unit: String, _ better: MetricDirection?, _ combination: MetricCombination, _ field: Field,
         since03: Bool = false, formerly formerName: String? = nil) {
        self.name = name
        self.unit = unit
        self.better = better
        self.combination = combination
        self.field = field
        self.since03 = since03
        self.formerName = formerName
    }

    var description: String { name }

    /// True for the columns that name a run rather than measure it.
    var identifies: Bool { combination == .same }
    /// True for the counts a run adds up (requests, bytes, hits, cancellations, errors): in a
    /// virtual gate each must equal the baseline's exactly.
    var isCount: Bool {
        if case .integer = field { combination == .sum } else { false }
    }

    /// True for the columns that are a number (a threshold's, a comparison's).
    var isNumber: Bool {
        if case .text = field { false } else { true }
    }

    /// The value as reports print it.
    func value(of summary: RunSummary) -> RunSummary.Value {
        switch field {
        case .text(let path): .text(summary[keyPath: path])
        case .integer(let path): .integer(summary[keyPath: path])
        case .real(let path): .real(summary[keyPath: path])
        case .flag(let path): .integer(summary[keyPath: path] ? 1 : 0)
        case .statistic(let path, .n): .integer(summary[keyPath: path].n)
        case .statistic(let path, let statistic): .real(summary[keyPath: path][statistic])
        case .derived(let compute): .real(compute(summary))
        }
    }

    /// The value as a number; nil for text.
    func number(of summary: RunSummary) -> Double? {
        switch value(of: summary) {
        case .text: nil
        case .integer(let integer): Double(integer)
        case .real(let real): real
        }
    }

    /// Reads the value back from its CSV text (reals at the 3 decimals the CSV keeps, an empty
    /// real as 0). Derived metrics are skipped.
    func read(_ text: String, into summary: inout RunSummary) -> Bool {
        switch field {
        case .text(let path): summary[keyPath: path] = text
        case .integer(let path):
            guard let value = Int(text) else { return false }
            summary[keyPath: path] = value
        case .real(let path):
            guard let value = text.isEmpty ? 0 : Double(text) else { return false }
            summary[keyPath: path] = value
        case .flag(let path):
            guard let value = Int(text) else { return false }
            summary[keyPath: path] = value == 1
        case .statistic(let path, .n):
            guard let value = Int(text) else { return false }
            summary[keyPath: path].n = value
        case .statistic(let path, let statistic):
            guard let value = text.isEmpty ? 0 : Double(text) else { return false }
            summary[keyPath: path][statistic] = value
        case .derived: break
        }
        return true
    }

    /// `total` with `part` added in by this metric's rule; the weighted and plain means are
    /// finished by `RunSummary.combining`, which knows every part.
    func accumulate(_ part: RunSummary, into total: inout RunSummary) {
        switch (combination, field) {
        case (.sum, .integer(let path)): total[keyPath: path] += part[keyPath: path]
        case (.sum, .real(let path)): total[keyPath: path] += part[keyPath: path]
        case (.largest, .integer(let path)): total[keyPath: path] = max(total[keyPath: path], part[keyPath: path])
        case (.largest, .real(let path)): total[keyPath: path] = max(total[keyPath: path], part[keyPath: path])
        case (.largest, .flag(let path)): total[keyPath: path] = total[keyPath: path] || part[keyPath: path]
        case (.sum, .statistic(let path, .n)): total[keyPath: path].n += part[keyPath: path].n
        case (.sum, .statistic(let path, let statistic)): total[keyPath: path][statistic] += part[keyPath: path][statistic]
        case (.largest, .statistic(let path, let statistic)):
            total[keyPath: path][statistic] = max(total[keyPath: path][statistic], part[keyPath: path][statistic])
        case (.sumPerKey, .text(let path)):
            var counts = HTTPErrorCounts(text: total[keyPath: path]) ?? HTTPErrorCounts()
            counts.add(HTTPErrorCounts(text: part[keyPath: path]) ?? HTTPErrorCounts())
            total[keyPath: path] = counts.text
        default: break
        }
    }

    /// Sets this metric on `total` to the mean of the parts' values under `weights`.
    func average(_ parts: [RunSummary], weights: [Double], into total: inout RunSummary) {
        let sum = weights.reduce(0, +)
        switch field {
        case .real(let path): total[keyPath: path] = zip(parts, weights).reduce(0) { $0 + $1.0[keyPath: path] * $1.1 } / sum
        case .statistic(let path, let statistic) where statistic != .n:
            total[keyPath: path][statistic] = zip(parts, weights).reduce(0) { $0 + $1.0[keyPath: path][statistic] * $1.1 } / sum
        default: break
        }
    }
}

extension Metric {
    /// A metric by its column name, or by the name it had before (`latency_p95_ms`).
    static func named(_ name: String) -> Metric? { byName[name] ?? byFormerName[name] }

    /// A column name as today's catalog spells it: a former name becomes the current one, any other
    /// name is kept. Every reader of a results directory passes its header through this.
    static func currentName(_ column: String) -> String { byFormerName[column]?.name ?? column }

    private static let byName = Dictionary(uniqueKeysWithValues: catalog.map { ($0.name, $0) })
    private static let byFormerName = Dictionary(uniqueKeysWithValues: catalog.compactMap { metric in
        metric.formerName.map { ($0, metric) }
    })
}
