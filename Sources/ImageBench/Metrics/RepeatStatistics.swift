/// A metric's median over repeats with a 95% confidence interval.
struct Estimate: Sendable, Equatable {
    let median: Double
    let low: Double
    let high: Double
    let count: Int
}

/// Statistics across the repeats of one cell.
enum RepeatStatistics {
    /// The median and its 95% percentile-bootstrap confidence interval: 2,000 resamples with
    /// replacement, the 2.5th and 97.5th percentiles of their medians. No assumption about the
    /// metric's distribution (latency tails are anything but normal); the resampling is seeded,
    /// so the same repeats always give the same interval. With one value the interval is that value.
    static func median(_ values: [Double], resamples: Int = 2_000, seed: UInt64 = 0x5EED) -> Estimate {
        precondition(!values.isEmpty, "no values to estimate from")
        let center = median(of: values)
        guard values.count > 1 else { return Estimate(median: center, low: center, high: center, count: 1) }
        var random = SeededRandom(seed: seed)
        var medians = [Double]()
        medians.reserveCapacity(resamples)
        var sample = values
        for _ in 0..<resamples {
            for index in sample.indices { sample[index] = values[Int(random.next() % UInt64(values.count))] }
            medians.append(median(of: sample))
        }
        medians.sort()
        let low = medians[Int(Double(resamples - 1) * 0.025)]
        let high = medians[Int(Double(resamples - 1) * 0.975)]
        // The sample median is always inside, but guard against rounding at the extremes.
        return Estimate(median: center, low: min(low, center), high: max(high, center), count: values.count)
    }

    static func median(of values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// One strategy × concurrency cell summarised over its repeats.
struct CellAggregate: Sendable {
    let strategy: String
    let concurrency: Int
    let format: String
    let runs: Int
    let estimates: [(metric: Metric, estimate: Estimate)]

    /// One aggregate per cell, in the order cells first ran.
    static func of(_ results: [RunResult]) -> [CellAggregate] {
        RunResult.byCell(results).map { runs in
            let summaries = runs.map(\.summary)
            let estimates = Metric.aggregated.map { metric in
                (metric, RepeatStatistics.median(summaries.map { metric.number(of: $0) ?? 0 }))
            }
            return CellAggregate(strategy: summaries[0].strategy, concurrency: summaries[0].concurrency, format: summaries[0].format,
                                 runs: summaries.count, estimates: estimates)
        }
    }
}

extension CellAggregate {
    /// The median over repeats of one metric and its interval (nil for a metric not aggregated).
    func estimate(_ metric: Metric) -> Estimate? { estimates.first { $0.metric.name == metric.name }?.estimate }

    /// The median over repeats of one metric (nil for a metric not aggregated).
    func median(_ metric: Metric) -> Double? { estimate(metric)?.median }
}
