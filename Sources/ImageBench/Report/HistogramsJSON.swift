import Foundation

/// `histograms.json`: every run's display-latency and stage histograms, whole (HdrHistogram's
/// Codable form), so `imgbench merge` can join shards exactly: merged percentiles are those of
/// the union of the samples, never an average of percentiles. Each run's seconds
/// (timeseries.csv's counts and time-to-first-byte histograms) are kept too, so shards' time
/// series add up second by second.
struct HistogramsJSON: ReportWriter {
    static let fileName = "histograms.json"

    init() {}

    struct Run: Codable, Sendable {
        let strategy: String
        let concurrency: Int
        let repetition: Int
        let latency: LatencyHistogram
        let stages: [String: LatencyHistogram]
        /// Absent in files of imgbench 0.1.
        var placeholder: LatencyHistogram?
        var ready: LatencyHistogram?
        /// Absent in files of imgbench 0.2 and earlier.
        var seconds: [Timeline.Interval]?
        /// Whole requests (first byte and transfer); absent in files of imgbench 0.2 and earlier.
        var request: LatencyHistogram?
        /// The corpus format and decode time per megapixel; absent in files of imgbench 0.2 and earlier.
        var format: String?
        var decodePerMegapixel: LatencyHistogram?
        /// The memory cache's hit thresholds (kB: `CacheSizeCurve`); absent in files of imgbench 0.2 and earlier.
        var memoryHitThresholds: LatencyHistogram?
        /// Time to first image (`--progressive`'s previews or the image); absent in files of imgbench 0.2 and earlier.
        var firstImage: LatencyHistogram?
        /// Settle time and each rest's sample; absent in files of imgbench 0.3 and earlier.
        var settle: LatencyHistogram?
        var settleSamples: [SettleSample]?
        /// The cell's policies (what tells apart the cells of a run that varies them); absent before 0.4.
        var cancel: String?
        var prefetch: Int?
        var memoryCacheMb: Int?
        /// Every setting a run can vary, by its summary.csv column; absent before 0.5.
        var policies: [String: String]?
        /// Connect time of each new connection (`WireTotals`); absent before 0.7.
        var connect: LatencyHistogram?
        /// TLS handshake time of each new HTTPS connection; absent before 0.8.
        var tlsHandshake: LatencyHistogram?

        /// The cell's value of each setting a run can vary, by column (files before 0.5: the three they have).
        var policyValues: [String: String] {
            policies ?? ["cancel": cancel ?? "", "prefetch": String(prefetch ?? 0), "memory_cache_mb": String(memoryCacheMb ?? 0)]
        }

        /// The cell the run belongs to, by the values of the policies the run varied (`varied`).
        func cell(varied: [PolicyDimension]) -> ResultCell {
            let values = policyValues
            return ResultCell(strategy: strategy, concurrency: concurrency, format: format ?? "",
                              variant: PolicyVariant(varied.reduce(into: [:]) { $0[$1] = values[$1.rawValue] ?? "" }))
        }

        /// The run's distributions as written (empty where an older file has none).
        var distributions: RunDistributions {
            var distributions = RunDistributions()
            distributions.latency = latency
            distributions.stages = StageHistograms(histograms: stages)
            distributions.placeholder = placeholder ?? LatencyHistogram()
            distributions.ready = ready ?? LatencyHistogram()
            distributions.request = request ?? LatencyHistogram()
            distributions.decodePerMegapixel = decodePerMegapixel ?? LatencyHistogram()
            distributions.memoryHitThresholds = memoryHitThresholds ?? LatencyHistogram()
            distributions.firstImage = firstImage ?? LatencyHistogram()
            distributions.settle = settle ?? LatencyHistogram()
            distributions.settleSamples = settleSamples ?? []
            distributions.connect = connect ?? LatencyHistogram()
            distributions.tlsHandshake = tlsHandshake ?? LatencyHistogram()
            return distributions
        }
    }

    func render(_ results: BenchmarkResults) throws -> String {
        let runs = results.results.map { result in
            var run = Run(strategy: result.cell.strategy.rawValue, concurrency: result.cell.concurrency, repetition: result.cell.repetition,
                latency: result.latency, stages: result.stages.histograms, placeholder: result.placeholder, ready: result.ready,
                seconds: result.timeline.intervals, request: result.distributions.request, format: result.summary.format,
                decodePerMegapixel: result.distributions.decodePerMegapixel, memoryHitThresholds: result.distributions.memoryHitThresholds, firstImage: result.distributions.firstImage,
                settle: result.distributions.settle, settleSamples: result.distributions.settleSamples,
                cancel: result.summary.cancel, prefetch: result.summary.prefetch, memoryCacheMb: result.summary.memoryCacheMb,
                policies: Dictionary(uniqueKeysWithValues: PolicyDimension.allCases.map { ($0.rawValue, $0.value(of: result.summary)) }))
            run.connect = result.distributions.connect
            // Only where there was a handshake: clear-text runs' files stay as they were.
            if result.distributions.tlsHandshake.count > 0 { run.tlsHandshake = result.distributions.tlsHandshake }
            return run
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(runs), as: UTF8.self) + "\n"
    }

    static func read(_ directory: URL) throws -> [Run] {
        try JSONDecoder().decode([Run].self, from: Data(contentsOf: directory.appendingPathComponent(HistogramsJSON.fileName)))
    }
}
