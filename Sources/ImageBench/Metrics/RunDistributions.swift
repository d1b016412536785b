import Histogram

/// A run's distributions, kept whole (HdrHistogram): display latency, the pipeline stages (time
/// to first byte among them), placeholder time and ready latency. They merge exactly across users and shards, and
/// summary.csv's percentiles are read from them, never averaged.
public struct RunDistributions: Sendable {
    public var latency = LatencyHistogram()
    public var stages = StageHistograms()
    /// Placeholder time of every request.
    public var placeholder = LatencyHistogram()
    /// Ready latency of the displayed requests.
    public var ready = LatencyHistogram()
    /// Whole request (first byte and transfer) of the loads the ttfb stage has.
    public var request = LatencyHistogram()

    public init() {}

    /// Two digits: a crowd user's own distributions (see `LatencyHistogram.init`).
    init(significantDigits digits: SignificantDigits) {
        latency = LatencyHistogram(significantDigits: digits)
        stages = StageHistograms(significantDigits: digits)
        placeholder = LatencyHistogram(significantDigits: digits)
        ready = LatencyHistogram(significantDigits: digits)
        request = LatencyHistogram(significantDigits: digits)
    }

    /// Another run's samples added to these.
    public mutating func add(_ other: RunDistributions) {
        latency.add(other.latency)
        stages.add(other.stages)
        placeholder.add(other.placeholder)
        ready.add(other.ready)
        request.add(other.request)
    }

    /// The summary's percentile fields from these. Placeholder time and ready latency only where
    /// any were recorded: histograms.json of imgbench 0.1 has none, and the summary keeps its own.
    public func fill(_ summary: inout RunSummary) {
        summary.latencyP50Ms = latency.milliseconds(atPercentile: 50)
        summary.latencyP90Ms = latency.milliseconds(atPercentile: 90)
        summary.latencyP95Ms = latency.milliseconds(atPercentile: 95)
        summary.latencyP99Ms = latency.milliseconds(atPercentile: 99)
        summary.latencyMaxMs = latency.maxMilliseconds
        let ttfb = stages["ttfb"]
        if ttfb.count > 0 {
            summary.ttfbP50Ms = ttfb.milliseconds(atPercentile: 50)
            summary.ttfbP90Ms = ttfb.milliseconds(atPercentile: 90)
            summary.ttfbP95Ms = ttfb.milliseconds(atPercentile: 95)
            summary.ttfbP99Ms = ttfb.milliseconds(atPercentile: 99)
            summary.ttfbMaxMs = ttfb.maxMilliseconds
        }
        if request.count > 0 {
            summary.requestP50Ms = request.milliseconds(atPercentile: 50)
            summary.requestP90Ms = request.milliseconds(atPercentile: 90)
            summary.requestP95Ms = request.milliseconds(atPercentile: 95)
            summary.requestP99Ms = request.milliseconds(atPercentile: 99)
            summary.requestMaxMs = request.maxMilliseconds
        }
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
}
