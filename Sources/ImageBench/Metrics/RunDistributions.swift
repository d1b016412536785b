import Histogram

/// A run's distributions, kept whole (HdrHistogram): display latency, the pipeline stages (time
/// to first byte among them), placeholder time and ready latency. They merge exactly across users and shards, and
/// summary.csv's percentiles are read from them, never averaged.
struct RunDistributions: Sendable {
    var latency = LatencyHistogram()
    var stages = StageHistograms()
    /// Placeholder time of every request.
    var placeholder = LatencyHistogram()
    /// Ready latency of the displayed requests.
    var ready = LatencyHistogram()
    /// Whole request (first byte and transfer) of the loads the ttfb stage has.
    var request = LatencyHistogram()
    /// Decode time per megapixel of the file (ns per 10⁶ source pixels) of every image decoded.
    var decodePerMegapixel = LatencyHistogram()
    /// For each request an earlier insert could answer, the smallest memory cache that would
    /// (kB; `CacheSizeCurve`).
    var memoryHitThresholds = LatencyHistogram()
    /// Time to first image of the displayed requests: display latency, or to the first
    /// progressive preview where one was shown first (`--progressive`).
    var firstImage = LatencyHistogram()
    /// Settle time of every rest of the scroll (censored ones at their length), and each rest's
    /// sample, keyed so that cells' rests pair (`SettleTime.swift`).
    var settle = LatencyHistogram()
    var settleSamples: [SettleSample] = []

    init() {}

    /// Two digits: a crowd user's own distributions (see `LatencyHistogram.init`).
    init(significantDigits digits: SignificantDigits) {
        latency = LatencyHistogram(significantDigits: digits)
        stages = StageHistograms(significantDigits: digits)
        placeholder = LatencyHistogram(significantDigits: digits)
        ready = LatencyHistogram(significantDigits: digits)
        request = LatencyHistogram(significantDigits: digits)
        decodePerMegapixel = LatencyHistogram(significantDigits: digits)
    }

    /// Another run's samples added to these.
    mutating func add(_ other: RunDistributions) {
        latency.add(other.latency)
        stages.add(other.stages)
        placeholder.add(other.placeholder)
        ready.add(other.ready)
        request.add(other.request)
        decodePerMegapixel.add(other.decodePerMegapixel)
        memoryHitThresholds.add(other.memoryHitThresholds)
        firstImage.add(other.firstImage)
        settle.add(other.settle)
        settleSamples += other.settleSamples
    }

    /// The summary's percentile fields from these. Placeholder time and ready latency only where
    /// any were recorded: histograms.json of imgbench 0.1 has none, and the summary keeps its own.
    func fill(_ summary: inout RunSummary) {
        Self.fill(&summary, from: latency, \.displayP50Ms, \.displayP90Ms, \.displayP95Ms, \.displayP99Ms, \.displayMaxMs)
        let ttfb = stages["ttfb"]
        if ttfb.count > 0 { Self.fill(&summary, from: ttfb, \.ttfbP50Ms, \.ttfbP90Ms, \.ttfbP95Ms, \.ttfbP99Ms, \.ttfbMaxMs) }
        if request.count > 0 {
            Self.fill(&summary, from: request, \.requestP50Ms, \.requestP90Ms, \.requestP95Ms, \.requestP99Ms, \.requestMaxMs)
        }
        if firstImage.count > 0 {
            summary.firstImageP50Ms = firstImage.milliseconds(atPercentile: 50)
            summary.firstImageP95Ms = firstImage.milliseconds(atPercentile: 95)
        }
        if decodePerMegapixel.count > 0 {
            summary.decodeMsPerMpP50 = decodePerMegapixel.milliseconds(atPercentile: 50)
            summary.decodeMsPerMpP95 = decodePerMegapixel.milliseconds(atPercentile: 95)
        }
        fillSettle(&summary)
        guard placeholder.count > 0 else { return }
        summary.placeholderP50Ms = placeholder.milliseconds(atPercentile: 50)
        summary.placeholderP95Ms = placeholder.milliseconds(atPercentile: 95)
        summary.placeholderP99Ms = placeholder.milliseconds(atPercentile: 99)
        summary.placeholderMeanMs = placeholder.meanMilliseconds
        summary.placeholderCount = placeholder.count
        summary.readyP50Ms = ready.milliseconds(atPercentile: 50)
        summary.readyP95Ms = ready.milliseconds(atPercentile: 95)
        summary.readyP99Ms = ready.milliseconds(atPercentile: 99)
    }

    /// A distribution's p50, p90, p95, p99 and max into the summary's five fields for them.
    private static func fill(_ summary: inout RunSummary, from histogram: LatencyHistogram,
                             _ p50: WritableKeyPath<RunSummary, Double>, _ p90: WritableKeyPath<RunSummary, Double>,
                             _ p95: WritableKeyPath<RunSummary, Double>, _ p99: WritableKeyPath<RunSummary, Double>,
                             _ max: WritableKeyPath<RunSummary, Double>) {
        for (path, percentile) in [(p50, 50.0), (p90, 90), (p95, 95), (p99, 99)] {
            summary[keyPath: path] = histogram.milliseconds(atPercentile: percentile)
        }
        summary[keyPath: max] = histogram.maxMilliseconds
    }
}
