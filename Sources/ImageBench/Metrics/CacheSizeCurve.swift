/// Memory hit rate against memory cache size, for every size at once: a run's lookups each
/// answered by caches from some size up (`CacheAccessLog`), so the hit rate of a cache of C bytes
/// is the share of requests whose threshold is at most C. Requests whose image was never in the
/// cache before (the first sight of an image, a load that failed) hit at no size.
///
/// The thresholds are kept in an HdrHistogram (`RunDistributions.memoryHitThresholds`) in kB at
/// three significant digits: sizes are exact to 0.1%, users and shards merge exactly, and
/// histograms.json carries them.
struct CacheSizeCurve: Sendable {
    /// Thresholds in kB (recorded as `record(nanoseconds: bytes)`: the histogram's unit is
    /// 1/1,000 of what it is given).
    let thresholds: LatencyHistogram
    /// Every request the hit rate is a share of (summary.csv's `requests`).
    let requests: Int

    init(thresholds: LatencyHistogram, requests: Int) {
        self.thresholds = thresholds
        self.requests = requests
    }

    /// The runs' curves pooled: the hit rate of caches of each size over all their requests.
    init(_ runs: [RunResult]) {
        var thresholds = LatencyHistogram()
        for run in runs { thresholds.add(run.distributions.memoryHitThresholds) }
        self.init(thresholds: thresholds, requests: runs.reduce(0) { $0 + $1.summary.requests })
    }

    /// Whether runs of `settings` log their cache accesses for the curve: a single user's do.
    /// A crowd's users would hold 24 bytes per lookup each for minutes of load, which the
    /// harness's cost per user cannot afford, and a load test asks about the server, not the cache.
    static func isRecorded(_ settings: RunSettings) -> Bool { settings.clients == 1 && settings.load == nil }

    static func record(_ bytes: [Int], into histogram: inout LatencyHistogram) {
        for value in bytes { histogram.record(nanoseconds: UInt64(max(0, value))) }
    }

    /// Whether there is anything to draw: requests, and some that a cache could answer.
    var isEmpty: Bool { requests == 0 || thresholds.count == 0 }

    func hitRate(atBytes bytes: Int) -> Double {
        guard requests > 0, thresholds.count > 0, bytes >= 1_000 else { return 0 }
        let answered = thresholds.histogram.count(within: 0...UInt64(bytes / 1_000))
        return Double(answered) / Double(requests)
    }

    /// The hit rate of an unbounded cache: every request for an image seen before.
    var bestHitRate: Double { requests > 0 ? Double(thresholds.count) / Double(requests) : 0 }

    /// The largest threshold: no larger cache answers more (bytes).
    var largestUsefulBytes: Int { Int(thresholds.histogram.max) * 1_000 }

    /// The smallest whole number of MB (as `--memory-cache-mb` takes) whose hit rate is within
    /// `points` (0.01: one percentage point) of the best.
    func smallestMegabytes(within points: Double = 0.01) -> Int {
        guard !isEmpty else { return 0 }
        let target = bestHitRate - points
        var low = 0, high = max(1, (largestUsefulBytes + 999_999) / 1_000_000)
        while low < high {
            let middle = (low + high) / 2
            if hitRate(atBytes: middle * 1_000_000) >= target - 1e-12 { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The hit rate at evenly spaced sizes from 0 through `end` bytes, at a round step (0.5 MB,
    /// 1 MB, …) giving about `count` of them, to list and draw the curve.
    func points(upTo end: Int, count: Int = 200) -> [(bytes: Int, hitRate: Double)] {
        let step = max(1_000, Int(RoundTicks.step(for: Double(max(end, 1)), count: count)))
        return stride(from: 0, to: end + step, by: step).map { ($0, hitRate(atBytes: $0)) }
    }
}
