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
    /// Connect time of each new connection the transport opened (`WireTotals`).
    var connect = LatencyHistogram()
    /// TLS handshake time of each new HTTPS connection (`WireTotals`).
    var tlsHandshake = LatencyHistogram()

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
        connect.add(other.connect)
        tlsHandshake.add(other.tlsHandshake)
    }

    /// The summary's distributions from these, each family's statistics (`Metric.display`, …).
    /// Placeholder time and ready latency only where any were recorded: histograms.json of
    /// imgbench 0.1 has none, and the summary keeps its own.
    func fill(_ summary: inout RunSummary) {
        Metric.display.fill(&summary, from: latency)
        let ttfb = stages["ttfb"]
        if ttfb.count > 0 { Metric.ttfb.fill(&summary, from: ttfb) }
        if request.count > 0 { Metric.request.fill(&summary, from: request) }
        if firstImage.count > 0 { Metric.firstImage.fill(&summary, from: firstImage) }
        if decodePerMegapixel.count > 0 { Metric.decodeMsPerMp.fill(&summary, from: decodePerMegapixel) }
        if tlsHandshake.count > 0 { Metric.tlsHandshake.fill(&summary, from: tlsHandshake) }
        fillSettle(&summary)
        guard placeholder.count > 0 else { return }
        Metric.placeholder.fill(&summary, from: placeholder)
        Metric.ready.fill(&summary, from: ready)
    }
}
