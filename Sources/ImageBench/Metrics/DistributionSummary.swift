/// The statistics of one distribution of a run (display latency, placeholder time, time to first
/// byte, …), in milliseconds. A family reports the statistics its `DistributionFamily` names; the
/// others stay 0 and make no column.
struct DistributionSummary: Sendable, Equatable {
    var p50 = 0.0
    var p90 = 0.0
    var p95 = 0.0
    var p99 = 0.0
    var max = 0.0
    var mean = 0.0
    /// The samples the statistics cover (placeholder time's requests).
    var n = 0

    /// A statistic in milliseconds (`n`, the one count, is its own field). A switch rather than a
    /// key path: every report reads every column of every run through it, and a key path formed
    /// from two (a subscript component) cost the report phase 0.9% more instructions.
    subscript(statistic: Statistic) -> Double {
        get {
            switch statistic {
            case .p50: p50
            case .p90: p90
            case .p95: p95
            case .p99: p99
            case .max: max
            case .mean: mean
            case .n: Double(n)
            }
        }
        set {
            switch statistic {
            case .p50: p50 = newValue
            case .p90: p90 = newValue
            case .p95: p95 = newValue
            case .p99: p99 = newValue
            case .max: max = newValue
            case .mean: mean = newValue
            case .n: n = Int(newValue)
            }
        }
    }

    /// One statistic, as a column names it (`display_p95_ms`, `placeholder_n`).
    enum Statistic: String, Sendable, CaseIterable {
        case p50, p90, p95, p99, max, mean, n


        /// The statistic of a histogram, as summary.csv has always read it.
        func value(of histogram: LatencyHistogram) -> Double {
            switch self {
            case .p50: histogram.milliseconds(atPercentile: 50)
            case .p90: histogram.milliseconds(atPercentile: 90)
            case .p95: histogram.milliseconds(atPercentile: 95)
            case .p99: histogram.milliseconds(atPercentile: 99)
            case .max: histogram.maxMilliseconds
            case .mean: histogram.meanMilliseconds
            case .n: Double(histogram.count)
            }
        }
    }
}

/// One distribution's catalog entries, generated from one declaration (`Metric.display`, …): a
/// column per statistic it names, in that order, `<prefix>_<statistic><suffix>`
/// (`display_p95_ms`; `n` is `<prefix>_n`, a count). Adding a statistic to a family is adding it
/// to the family's list: the column, its reading back, combining and filling follow.
struct DistributionFamily: Sendable {
    let path: WritableKeyPath<RunSummary, DistributionSummary> & Sendable
    let statistics: [DistributionSummary.Statistic]
    /// In statistics order.
    let metrics: [Metric]

    /// `formerly` is the prefix the columns had before 0.6 (`latency` for `display`); `counting`
    /// is the unit of `n`. Every statistic but `n` is in ms, lower is better, and is recomputed
    /// from the merged histograms when users or shards combine; `n` adds up.
    init(_ prefix: String, _ path: WritableKeyPath<RunSummary, DistributionSummary> & Sendable,
         _ statistics: [DistributionSummary.Statistic], suffix: String = "_ms", counting: String = "samples",
         since03: Bool = false, formerly: String? = nil) {
        self.path = path
        self.statistics = statistics
        metrics = statistics.map { statistic in
            guard statistic != .n else {
                return Metric(prefix + "_n", counting, nil, .sum, .statistic(path, .n),
                              since03: since03, formerly: formerly.map { $0 + "_n" })
            }
            let name = { (prefix: String) in prefix + "_" + statistic.rawValue + suffix }
            return Metric(name(prefix), "ms", .lowerIsBetter, .recomputed, .statistic(path, statistic),
                          since03: since03, formerly: formerly.map(name))
        }
    }

    /// The entry of one statistic the family reports.
    subscript(statistic: DistributionSummary.Statistic) -> Metric {
        guard let index = statistics.firstIndex(of: statistic) else {
            preconditionFailure("\(metrics.first?.name ?? "a family") does not report \(statistic)")
        }
        return metrics[index]
    }

    /// The family's statistics of a histogram into the summary (the others are left as they are).
    func fill(_ summary: inout RunSummary, from histogram: LatencyHistogram) {
        for statistic in statistics {
            if statistic == .n { summary[keyPath: path].n = histogram.count } else {
                summary[keyPath: path][statistic] = statistic.value(of: histogram)
            }
        }
    }
}
