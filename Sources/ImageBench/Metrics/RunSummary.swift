/// The headline numbers of one run: one row of `summary.csv`.
public struct RunSummary: Sendable, Equatable {
    public var strategy: String
    public var concurrency: Int
    public var repetition: Int
    public var network: String
    public var transport: String
    public var rows: Int
    public var rowsVisited: Int
    public var requests: Int
    public var memoryHits: Int
    public var diskHits: Int
    public var networkFetches: Int
    public var merged: Int
    public var errors: Int
    /// Loads (fetch + decode) that failed, by class, counted whether or not a row still waited
    /// for the image: `errors` counts requests that showed an error, these count the failures
    /// themselves. Classes without failures may be absent.
    public var errorsByClass: [ErrorClass: Int] = [:]
    /// Fetch attempts beyond the first (`--retries`).
    public var retries = 0
    /// HTTP requests sent, retries included: what a server sees. Lower than `network_fetches` when
    /// loads are cancelled before a worker picks them up.
    public var httpRequests = 0
    /// Decoder warnings: damaged images that still displayed (gray where data was missing).
    public var decodeWarnings = 0
    public var displayed: Int
    public var neverDisplayed: Int
    public var cancelledQueued: Int
    public var cancelledInflight: Int
    public var bytesDownloaded: Int
    /// Network bytes not downloaded because of cancellation, net: images that were cancelled and
    /// then loaded anyway later in the run saved nothing.
    public var bytesSaved: Int
    /// Bytes of transfers cancelled part-way.
    public var bytesWasted: Int
    public var decodeMsSaved: Double
    public var wastedCompletions: Int
    public var prefetchLoads: Int
    public var prefetchCancelled: Int
    public var memoryEvictions: Int
    public var diskWrites: Int
    /// Disk cache entries that failed verification, were deleted and refetched.
    public var diskDiscarded: Int
    public var latencyP50Ms: Double
    public var latencyP90Ms: Double
    public var latencyP95Ms: Double
    public var latencyP99Ms: Double
    public var latencyMaxMs: Double
    public var placeholderRatio: Double
    public var hitchMsPerS: Double
    /// Main-loop work per second of scrolling, hitch or not: the main thread's load.
    public var mainBusyMsPerS: Double
    public var droppedFrames: Int
    public var achievedConcurrencyMean: Double
    public var achievedConcurrencyPeak: Int
    public var imagesDecoded: Int
    public var imagesPerS: Double
    public var bytesPerS: Double
    public var cpuUserS: Double
    public var cpuSysS: Double
    public var peakRssMb: Double
    public var durationS: Double
    /// The run was stopped early (Ctrl-C): its numbers cover only the part it ran.
    public var partial = false

    public var memoryHitRate: Double { requests > 0 ? Double(memoryHits) / Double(requests) : 0 }
    public var diskHitRate: Double { requests > 0 ? Double(diskHits) / Double(requests) : 0 }

    /// A value as reports print it.
    public enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int)
        case real(Double)
    }

    /// Every metric in report order, named as in the design (CSV header, JSON keys).
    public var fields: [(name: String, value: Value)] {
        [
            ("strategy", .text(strategy)), ("concurrency", .integer(concurrency)), ("repeat", .integer(repetition)),
            ("network", .text(network)), ("transport", .text(transport)), ("rows", .integer(rows)), ("rows_visited", .integer(rowsVisited)),
            ("requests", .integer(requests)), ("memory_hits", .integer(memoryHits)), ("disk_hits", .integer(diskHits)),
            ("network_fetches", .integer(networkFetches)), ("merged", .integer(merged)),
            ("memory_hit_rate", .real(memoryHitRate)), ("disk_hit_rate", .real(diskHitRate)),
            ("cancelled_queued", .integer(cancelledQueued)), ("cancelled_inflight", .integer(cancelledInflight)),
            ("bytes_downloaded", .integer(bytesDownloaded)), ("bytes_saved", .integer(bytesSaved)),
            ("bytes_wasted", .integer(bytesWasted)),
            ("decode_ms_saved", .real(decodeMsSaved)), ("wasted_completions", .integer(wastedCompletions)),
            ("prefetch_loads", .integer(prefetchLoads)), ("prefetch_cancelled", .integer(prefetchCancelled)),
            ("memory_evictions", .integer(memoryEvictions)), ("disk_writes", .integer(diskWrites)),
            ("disk_discarded", .integer(diskDiscarded)),
            ("errors", .integer(errors)),
        ] + ErrorClass.allCases.map { ("errors_" + $0.rawValue, Value.integer(errorsByClass[$0, default: 0])) } + [
            ("retries", .integer(retries)), ("http_requests", .integer(httpRequests)), ("decode_warnings", .integer(decodeWarnings)),
            ("displayed", .integer(displayed)), ("never_displayed", .integer(neverDisplayed)),
            ("latency_p50_ms", .real(latencyP50Ms)), ("latency_p90_ms", .real(latencyP90Ms)),
            ("latency_p95_ms", .real(latencyP95Ms)), ("latency_p99_ms", .real(latencyP99Ms)),
            ("latency_max_ms", .real(latencyMaxMs)), ("placeholder_ratio", .real(placeholderRatio)),
            ("hitch_ms_per_s", .real(hitchMsPerS)), ("main_busy_ms_per_s", .real(mainBusyMsPerS)), ("dropped_frames", .integer(droppedFrames)),
            ("achieved_concurrency_mean", .real(achievedConcurrencyMean)),
            ("achieved_concurrency_peak", .integer(achievedConcurrencyPeak)),
            ("images_decoded", .integer(imagesDecoded)), ("images_per_s", .real(imagesPerS)),
            ("bytes_per_s", .real(bytesPerS)), ("cpu_user_s", .real(cpuUserS)), ("cpu_sys_s", .real(cpuSysS)),
            ("peak_rss_mb", .real(peakRssMb)), ("duration_s", .real(durationS)),
            ("partial", .integer(partial ? 1 : 0)),
        ]
    }
}
