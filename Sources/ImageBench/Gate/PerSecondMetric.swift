/// A column of timeseries.csv that a `--threshold` holds every second to, as load tools check a
/// server over time and not only over the whole run: `per_second.ttfb_p99_ms < 50` fails when any
/// second's time-to-first-byte p99 reached 50 ms (or its whole request's, `request_p99_ms`, or
/// its display latency's, `display_p99_ms`), `per_second.http_requests > 500` when any whole
/// second completed 500 or fewer. A count's last second is left out while there are others (it is
/// cut short by the end of the run); a percentile's seconds without a sample are left out.
struct PerSecondMetric: Sendable {
    static let prefix = "per_second."

    let column: String
    let better: MetricDirection
    /// Whether a run's last, partial second is left out.
    let counts: Bool
    let value: @Sendable (Timeline.Interval) -> Double?

    static let all: [PerSecondMetric] = [
        count("requests") { $0.requests }, count("http_requests") { $0.httpRequests }, count("bytes") { $0.bytes },
        PerSecondMetric(column: "errors", better: .lowerIsBetter, counts: false) { Double($0.errors) },
        count("active_users") { $0.activeUsers },
        percentile("ttfb_p50_ms") { $0.milliseconds(atPercentile: 50) }, percentile("ttfb_p90_ms") { $0.milliseconds(atPercentile: 90) },
        percentile("ttfb_p99_ms") { $0.milliseconds(atPercentile: 99) }, percentile("ttfb_max_ms") { $0.maxMilliseconds },
        percentile("request_p50_ms", \.request) { $0.milliseconds(atPercentile: 50) },
        percentile("request_p90_ms", \.request) { $0.milliseconds(atPercentile: 90) },
        percentile("request_p99_ms", \.request) { $0.milliseconds(atPercentile: 99) },
        percentile("request_max_ms", \.request) { $0.maxMilliseconds },
        percentile("display_p50_ms", \.display) { $0.milliseconds(atPercentile: 50) },
        percentile("display_p90_ms", \.display) { $0.milliseconds(atPercentile: 90) },
        percentile("display_p99_ms", \.display) { $0.milliseconds(atPercentile: 99) },
        percentile("display_max_ms", \.display) { $0.maxMilliseconds },
    ]

    private static func count(_ column: String, _ value: @escaping @Sendable (Timeline.Interval) -> Int) -> PerSecondMetric {
        PerSecondMetric(column: column, better: .higherIsBetter, counts: true) { Double(value($0)) }
    }

    private static func percentile(_ column: String, _ histogram: KeyPath<Timeline.Interval, LatencyHistogram> & Sendable = \.ttfb,
                                   _ value: @escaping @Sendable (LatencyHistogram) -> Double) -> PerSecondMetric {
        PerSecondMetric(column: column, better: .lowerIsBetter, counts: false) { interval in
            let samples = interval[keyPath: histogram]
            return samples.count > 0 ? value(samples) : nil
        }
    }

    /// `per_second.<column>`, or nil.
    static func named(_ name: String) -> PerSecondMetric? {
        guard name.hasPrefix(prefix) else { return nil }
        return all.first { prefix + $0.column == name }
    }

    /// The names a threshold may use, for error messages.
    static var names: [String] { all.map { prefix + $0.column } }

    /// Every second's value in a timeline, with the second.
    func values(in timeline: Timeline) -> [(second: Int, value: Double)] {
        var seconds = Array(timeline.intervals.enumerated())
        if counts && seconds.count > 1 { seconds.removeLast() }
        return seconds.compactMap { second, interval in value(interval).map { (second, $0) } }
    }
}
