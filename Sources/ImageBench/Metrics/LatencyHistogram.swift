import Histogram

/// A latency distribution in microseconds from 1 µs to 1 hour with 3 significant digits
/// (HdrHistogram): fixed memory, ~5 ns per record, exact merges across runs and shards.
public struct LatencyHistogram: Sendable, Codable, Equatable {
    public private(set) var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000,
                                                         numberOfSignificantValueDigits: .three)

    public init() {}

    public mutating func record(nanoseconds: UInt64) {
        _ = histogram.record(min(nanoseconds / 1_000, 3_600_000_000))
    }

    public mutating func add(_ other: LatencyHistogram) { histogram.add(other.histogram) }

    public var count: Int { Int(histogram.totalCount) }

    /// The value at `percentile` (0–100) in milliseconds; 0 when empty.
    public func milliseconds(atPercentile percentile: Double) -> Double {
        guard histogram.totalCount > 0 else { return 0 }
        return Double(histogram.valueAtPercentile(percentile)) / 1_000
    }

    public var maxMilliseconds: Double {
        histogram.totalCount > 0 ? Double(histogram.max) / 1_000 : 0
    }

    public var meanMilliseconds: Double { histogram.totalCount > 0 ? histogram.mean / 1_000 : 0 }
}
