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

    /// One statistic, as a column names it (`display_p95_ms`, `placeholder_n`).
    enum Statistic: String, Sendable, CaseIterable {
        case p50, p90, p95, p99, max, mean, n

        /// Where the value lives; nil for `n`, the one count.
        var milliseconds: (WritableKeyPath<DistributionSummary, Double> & Sendable)? {
            switch self {
            case .p50: return \DistributionSummary.p50
            case .p90: return \DistributionSummary.p90
            case .p95: return \DistributionSummary.p95
            case .p99: return \DistributionSummary.p99
            case .max: return \DistributionSummary.max
            case .mean: return \DistributionSummary.mean
            case .n: return nil
            }
        }

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
            guard let milliseconds = statistic.milliseconds else {
                return Metric(prefix + "_n", counting, nil, .sum, .integer(\RunSummary.[path, \.n]),
                              since03: since03, formerly: formerly.map { $0 + "_n" })
            }
            let name = { (prefix: String) in prefix + "_" + statistic.rawValue + suffix }
            return Metric(name(prefix), "ms", .lowerIsBetter, .recomputed, .real(\RunSummary.[path, milliseconds]),
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
            if let milliseconds = statistic.milliseconds {
                summary[keyPath: path][keyPath: milliseconds] = statistic.value(of: histogram)
            } else {
                summary[keyPath: path].n = histogram.count
            }
        }
    }
}

extension RunSummary {
    /// One statistic of one family as a single key path: `Metric.Field` holds Sendable key paths,
    /// and appending two gives one that is not, so the catalog's are formed here, with both parts
    /// as arguments (Sendable, so the key path is).
    fileprivate subscript<Value>(family: WritableKeyPath<RunSummary, DistributionSummary> & Sendable,
                                 statistic: WritableKeyPath<DistributionSummary, Value> & Sendable) -> Value {
        get { self[keyPath: family][keyPath: statistic] }
        set { self[keyPath: family][keyPath: statistic] = newValue }
    }
}
