/// The headline numbers of one run: one row of `summary.csv`.
public struct RunSummary: Sendable, Equatable {
    public var strategy = ""
    public var concurrency = 0
    public var repetition = 0
    /// The corpus format (`--formats`): `jpeg+png`, `webp`, …; empty for a `--source` that
    /// names no format.
    public var format = ""
    public var network = ""
    public var transport = ""
    /// The cell's policies (`--cancel`, `--prefetch`, `--memory-cache-mb`): what tells apart the
    /// cells of a run that varies them.
    public var cancel = ""
    public var prefetch = 0
    public var memoryCacheMb = 0
    /// The other settings a run can vary, as their flags' values read (`--coalesce on`,
    /// `--disk-read main`, `--decode-concurrency off`, `--filter none`).
    public var coalesce = ""
    public var diskRead = ""
    public var decodeConcurrency = ""
    public var filter = ""
    public var rows = 0
    public var rowsVisited = 0
    public var requests = 0
    public var memoryHits = 0
    public var diskHits = 0
    public var networkFetches = 0
    public var merged = 0
    public var errors = 0
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
    public var displayed = 0
    public var neverDisplayed = 0
    public var cancelledQueued = 0
    public var cancelledInflight = 0
    public var bytesDownloaded = 0
    /// Network bytes not downloaded because of cancellation, net: images that were cancelled and
    /// then loaded anyway later in the run saved nothing.
    public var bytesSaved = 0
    /// Bytes of transfers cancelled part-way.
    public var bytesWasted = 0
    public var decodeMsSaved = 0.0
    public var wastedCompletions = 0
    public var prefetchLoads = 0
    public var prefetchCancelled = 0
    public var memoryEvictions = 0
    public var diskWrites = 0
    /// Disk cache entries that failed verification, were deleted and refetched.
    public var diskDiscarded = 0
    public var displayP50Ms = 0.0
    public var displayP90Ms = 0.0
    public var displayP95Ms = 0.0
    public var displayP99Ms = 0.0
    public var displayMaxMs = 0.0
    public var placeholderRatio = 0.0
    /// Placeholder row-seconds per second of scrolling: how many rows, on average, showed a placeholder while the feed moved.
    public var placeholderRowSecondsPerS = 0.0
    public var hitchMsPerS = 0.0
    /// Main-loop work per second of scrolling, hitch or not: the main thread's load.
    public var mainBusyMsPerS = 0.0
    public var droppedFrames = 0
    public var achievedConcurrencyMean = 0.0
    public var achievedConcurrencyPeak = 0
    /// Images decoded (0 under `--no-decode`, which decodes nothing).
    public var imagesDecoded = 0
    /// Loads that delivered an image: decoded, or fetched whole under `--no-decode`.
    public var imagesLoaded = 0
    /// Rates over the wall span from the totals: with `--clients` and shards, the users' combined
    /// work over the time it took (not a sum of per-user rates, whose spans differ).
    public var imagesPerS: Double { durationS > 0 ? Double(imagesDecoded) / durationS : 0 }
    public var bytesPerS: Double { durationS > 0 ? Double(bytesDownloaded) / durationS : 0 }
    public var cpuUserS = 0.0
    public var cpuSysS = 0.0
    public var peakRssMb = 0.0
    public var durationS = 0.0
    /// Placeholder time over every request (see `RequestRecord.placeholder`): no survivorship.
    public var placeholderP50Ms = 0.0
    public var placeholderP95Ms = 0.0
    public var placeholderP99Ms = 0.0
    public var placeholderMeanMs = 0.0
    /// The requests placeholder time covers (its n).
    public var placeholderCount = 0
    /// Ready latency over the displayed requests (n: `displayed`), unquantised.
    public var readyP50Ms = 0.0
    public var readyP95Ms = 0.0
    public var readyP99Ms = 0.0
    /// Frames for which the main loop woke late (the host's fault, not the app's).
    public var hostLateFrames = 0
    /// The loop woke late on more than a small share of frames: the machine, not the app, set
    /// the frame times, and the run is not ranked or gated.
    public var hostOverloaded = false
    /// The run was stopped early (Ctrl-C): its numbers cover only the part it ran.
    public var partial = false
    /// The server's side: time to first byte over the loads that used the network (from the
    /// ttfb stage histogram), and HTTP requests per second and failed loads per network load.
    public var ttfbP50Ms = 0.0
    public var ttfbP90Ms = 0.0
    public var ttfbP95Ms = 0.0
    public var ttfbP99Ms = 0.0
    public var ttfbMaxMs = 0.0
    /// The same loads' whole request: first byte and transfer (the server's answer, all of it).
    public var requestP50Ms = 0.0
    /// Decode time per megapixel of the file, p50 and p95, over the images decoded.
    public var decodeMsPerMpP50 = 0.0
    public var decodeMsPerMpP95 = 0.0
    public var networkConcurrencyMean = 0.0
    public var networkConcurrencyPeak = 0
    public var decodeConcurrencyMean = 0.0
    public var decodeConcurrencyPeak = 0
    public var filterConcurrencyMean = 0.0
    public var filterConcurrencyPeak = 0
    public var firstImageP50Ms = 0.0
    public var firstImageP95Ms = 0.0
    public var previewsShown = 0
    /// Rests of the scroll, those censored (the scroll moved on, or the run ended, before every
    /// visible row showed its image), and settle time's p50, p95 and mean (`SettleTime.swift`).
    public var settleRests = 0
    public var settleCensored = 0
    public var settleP50Ms = 0.0
    public var settleP95Ms = 0.0
    public var settleMeanMs = 0.0
    /// The mean over rests of the rows' mean wait at rest (`SettleSample.waitNanoseconds`).
    public var restWaitMeanMs = 0.0
    public var previewDecodes = 0
    public var previewDecodeMs = 0.0
    public var bytesResumed = 0
    public var resumedLoads = 0
    public var resumesRefused = 0
    public var requestP90Ms = 0.0
    public var requestP95Ms = 0.0
    public var requestP99Ms = 0.0
    public var requestMaxMs = 0.0
    public var requestsPerS: Double { durationS > 0 ? Double(httpRequests) / durationS : 0 }
    public var errorRate: Double { networkFetches > 0 ? Double(errors) / Double(networkFetches) : 0 }

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
        Metric.catalog.map { ($0.name, $0.value(of: self)) }
    }
}

extension RunSummary {
    /// Failed loads of one class (0 when there were none).
    public subscript(errors errorClass: ErrorClass) -> Int {
        get { errorsByClass[errorClass, default: 0] }
        set { errorsByClass[errorClass] = newValue }
    }
}
