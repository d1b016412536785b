import Histogram

/// A latency distribution in microseconds from 1 µs to 1 hour with 3 significant digits
/// (HdrHistogram): ~5 ns per record, exact merges across runs and shards. Its counts grow with the
/// largest value recorded (about 16 kB up to 2 ms, 8 kB more per doubling) rather than being
/// sized for an hour up front (188 kB): a hundred users hold dozens each.
public struct LatencyHistogram: Sendable, Codable, Equatable {
    /// Microseconds, up to an hour.
    static let highest: UInt64 = 3_600_000_000
    private(set) var histogram: Histogram<UInt64>
    /// The exact sum of the values recorded (µs), for the mean. The library's mean walks every
    /// bucket through unspecialised generic code: 12 million instructions a call at three digits,
    /// and a crowd user's summing up cost 49 million, now 19 (about 15 ms, now 6: a late frame
    /// for every other user where a load model's user ends mid-run). nil once unknown (read back from a file that did
    /// not keep it, or merged with such a histogram): the mean is then the buckets' again.
    private(set) var sumMicroseconds: UInt64? = 0

    /// `digits`: three for everything reported; two (1% buckets, an eighth of the memory) for a
    /// crowd's users, whose own distributions only feed clients.csv while the crowd records the
    /// reported ones at three (`DistributionRecorder`).
    public init(significantDigits digits: SignificantDigits = .three) {
        histogram = digits == .two ? Self.emptyTwo : digits == .three ? Self.emptyThree : Self.empty(digits, upTo: 2)
    }

    /// Empty histograms share one count array until their first value (copy on write): a crowd
    /// user's many histograms that never see a value (its stages, its seconds' time to first byte
    /// while the crowd records them) cost nothing, not 2 kB (two digits) or 16 kB (three) each.
    private static let emptyTwo = empty(.two, upTo: 2)
    private static let emptyThree = empty(.three, upTo: 2)

    private static func empty(_ digits: SignificantDigits, upTo highest: UInt64) -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>(highestTrackableValue: Swift.max(2, highest), numberOfSignificantValueDigits: digits)
        // A backstop: `makeRoom` grows it first, but decoding a histogram written without its
        // extremes records into it value by value.
        histogram.autoResize = true
        return histogram
    }

    /// Grows the counts to hold `value` (µs) before it is recorded or merged: at least doubling
    /// the range, by one allocation and the library's vectorised merge. The library's own
    /// auto-resize appends the new counts one by one through unspecialised generic code, which
    /// cost reports 7% more instructions.
    private mutating func makeRoom(for value: UInt64) {
        guard value > histogram.highestTrackableValue else { return }
        let highest = Swift.min(Self.highest, Swift.max(value, histogram.highestTrackableValue * 2))
        var grown = Self.empty(histogram.numberOfSignificantValueDigits, upTo: highest)
        grown.add(histogram)
        histogram = grown
    }

    private enum CodingKeys: String, CodingKey {
        /// imgbench 0.2 and earlier: the histogram's full Codable form.
        case histogram
        /// HdrHistogram's compressed encoding, and the exact extremes it does not keep (µs).
        case hdrhistogram, minUs = "min_us", maxUs = "max_us"
        /// The exact sum (µs); files written before it was kept lack it.
        case sumUs = "sum_us"
    }

    /// Written in HdrHistogram's compressed encoding (a base64 string any HdrHistogram library
    /// reads) with the exact smallest and largest values, so percentiles read back are the same;
    /// read from that or from the full form imgbench 0.2 and earlier wrote.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(HistogramEncoding.encode(histogram, highest: Self.highest), forKey: .hdrhistogram)
        if histogram.totalCount > 0 {
            try container.encode(histogram.min, forKey: .minUs)
            try container.encode(histogram.maxRecorded, forKey: .maxUs)
        }
        try container.encodeIfPresent(sumMicroseconds, forKey: .sumUs)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        histogram = Self.empty(.three, upTo: 2)
        guard let text = try container.decodeIfPresent(String.self, forKey: .hdrhistogram) else {
            histogram = try container.decode(Histogram<UInt64>.self, forKey: .histogram)
            sumMicroseconds = nil
            return
        }
        let exact = try container.decodeIfPresent(UInt64.self, forKey: .minUs).flatMap { min in
            try container.decodeIfPresent(UInt64.self, forKey: .maxUs).map { (min: min, max: $0) }
        }
        // Sized for its largest value at once, not grown value by value.
        if let exact { histogram = Self.empty(.three, upTo: Swift.min(exact.max, Self.highest)) }
        do {
            try HistogramEncoding.decode(text, exact: exact, into: &histogram)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
        }
        // Only beside the exact extremes it is checked against (the writer always keeps both).
        sumMicroseconds = exact == nil ? nil : try container.decodeIfPresent(UInt64.self, forKey: .sumUs)
        if let sum = sumMicroseconds, !Self.sum(sum, fits: histogram) {
            throw DecodingError.dataCorruptedError(forKey: .sumUs, in: container,
                debugDescription: "sum_us \(sum) cannot be the sum of \(histogram.totalCount) values from \(histogram.min) to \(histogram.maxRecorded) µs")
        }
    }

    /// A sum from a file is hostile until checked: it must lie between count × smallest and
    /// count × largest (both exact: the file keeps its extremes), or the mean printed from it
    /// would lie outside the distribution. A count × smallest past UInt64 has no sum: the writer
    /// keeps none once it would overflow.
    private static func sum(_ sum: UInt64, fits histogram: Histogram<UInt64>) -> Bool {
        let count = histogram.totalCount
        guard count > 0 else { return sum == 0 }
        let low = histogram.min.multipliedReportingOverflow(by: count)
        let high = histogram.maxRecorded.multipliedReportingOverflow(by: count)
        return !low.overflow && sum >= low.partialValue && (high.overflow || sum <= high.partialValue)
    }

    public mutating func record(nanoseconds: UInt64) {
        let microseconds = min(nanoseconds / 1_000, Self.highest)
        makeRoom(for: microseconds)
        _ = histogram.record(microseconds)
        sumMicroseconds = Self.adding(sumMicroseconds, microseconds)
    }

    mutating func add(_ other: LatencyHistogram) {
        makeRoom(for: other.histogram.maxRecorded)
        histogram.add(other.histogram)
        sumMicroseconds = other.sumMicroseconds.flatMap { Self.adding(sumMicroseconds, $0) }
    }

    /// nil when either is unknown or the sum would overflow (some 5 billion hours).
    private static func adding(_ sum: UInt64?, _ value: UInt64) -> UInt64? {
        guard let sum else { return nil }
        let total = sum.addingReportingOverflow(value)
        return total.overflow ? nil : total.partialValue
    }

    public var count: Int { Int(histogram.totalCount) }

    /// The value at `percentile` (0–100) in milliseconds; 0 when empty.
    func milliseconds(atPercentile percentile: Double) -> Double {
        guard histogram.totalCount > 0 else { return 0 }
        return Double(histogram.valueAtPercentile(percentile)) / 1_000
    }

    /// A distribution-free 95% interval for the value at `percentile`, in milliseconds: the
    /// values at the order statistics n·p ∓ 1.96·√(n·p·(1−p)) (the binomial bound). It assumes
    /// independent samples; nil when empty.
    func interval(atPercentile percentile: Double) -> (low: Double, high: Double)? {
        let n = Double(histogram.totalCount)
        guard n > 0 else { return nil }
        let p = percentile / 100, spread = 1.96 * (n * p * (1 - p)).squareRoot()
        let low = max(0, n * p - spread) / n * 100, high = min(n, n * p + spread) / n * 100
        return (milliseconds(atPercentile: low), milliseconds(atPercentile: high))
    }

    var maxMilliseconds: Double {
        histogram.totalCount > 0 ? Double(histogram.max) / 1_000 : 0
    }

    /// The exact mean where the sum is known, else the buckets' (each value at its bucket's middle).
    var meanMilliseconds: Double {
        guard histogram.totalCount > 0 else { return 0 }
        guard let sumMicroseconds else { return histogram.mean / 1_000 }
        return Double(sumMicroseconds) / Double(histogram.totalCount) / 1_000
    }
}
