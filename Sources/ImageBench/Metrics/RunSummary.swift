/// The headline numbers of one run: one row of `summary.csv`.
struct RunSummary: Sendable, Equatable {
    var strategy = ""
    var concurrency = 0
    var repetition = 0
    /// The corpus format (`--formats`): `jpeg+png`, `webp`, …; empty for a `--source` that
    /// names no format.
    var format = ""
    var network = ""
    var transport = ""
    /// The cell's policies (`--cancel`, `--prefetch`, `--memory-cache-mb`): what tells apart the
    /// cells of a run that varies them.
    var cancel = ""
    var prefetch = 0
    var memoryCacheMb = 0
    /// The other settings a run can vary, as their flags' values read (`--coalesce on`,
    /// `--disk-read main`, `--decode-concurrency off`, `--filter none`).
    var coalesce = ""
    var diskRead = ""
    var decodeConcurrency = ""
    var filter = ""
    /// The HTTP version asked for (`--http`); requests.csv says what each request spoke.
    var http = ""
    var rows = 0
    var rowsVisited = 0
    var requests = 0
    var memoryHits = 0
    var diskHits = 0
    var networkFetches = 0
    var merged = 0
    var errors = 0
    /// Loads (fetch + decode) that failed, by class, counted whether or not a row still waited
    /// for the image: `errors` counts requests that showed an error, these count the failures
    /// themselves. Classes without failures may be absent.
    var errorsByClass: [ErrorClass: Int] = [:]
    /// Fetch attempts beyond the first (`--retries`).
    var retries = 0
    /// HTTP requests sent, retries included: what a server sees. Lower than `network_fetches` when
    /// loads are cancelled before a worker picks them up.
    var httpRequests = 0
    /// HTTP requests that failed (each attempt its own), and by what they ended in: the status,
    /// or the class when none came (`404 ×8250, timeout ×3`).
    var httpErrors = 0
    var httpErrorsByStatus = HTTPErrorCounts()
    /// HTTP requests cut by a cancel before their answer ended: neither failed nor succeeded.
    var httpCancelled = 0
    /// The wire (`WireTotals`, columns since 0.7): bytes sent and received with headers, new
    /// connections and requests that reused one; and the users' sessions (a looping user's traces,
    /// k6's iterations).
    var wireBytesSent = 0
    var wireBytesReceived = 0
    var connectionsOpened = 0
    var connectionsReused = 0
    var sessions = 0
    /// Decoder warnings: damaged images that still displayed (gray where data was missing).
    var decodeWarnings = 0
    var displayed = 0
    var neverDisplayed = 0
    var cancelledQueued = 0
    var cancelledInflight = 0
    var bytesDownloaded = 0
    /// Network bytes not downloaded because of cancellation, net: images that were cancelled and
    /// then loaded anyway later in the run saved nothing.
    var bytesSaved = 0
    /// Bytes of transfers cancelled part-way.
    var bytesWasted = 0
    var decodeMsSaved = 0.0
    var wastedCompletions = 0
    var prefetchLoads = 0
    var prefetchCancelled = 0
    var memoryEvictions = 0
    var diskWrites = 0
    /// Disk cache entries that failed verification, were deleted and refetched.
    var diskDiscarded = 0
    /// Display latency. Each distribution is one `DistributionSummary`; its family in
    /// `MetricCatalog` says which statistics are columns.
    var display = DistributionSummary()
    var placeholderRatio = 0.0
    /// Placeholder row-seconds per second of scrolling: how many rows, on average, showed a placeholder while the feed moved.
    var placeholderRowSecondsPerS = 0.0
    var hitchMsPerS = 0.0
    /// Main-loop work per second of scrolling, hitch or not: the main thread's load.
    var mainBusyMsPerS = 0.0
    var droppedFrames = 0
    var achievedConcurrencyMean = 0.0
    var achievedConcurrencyPeak = 0
    /// Images decoded (0 under `--no-decode`, which decodes nothing).
    var imagesDecoded = 0
    /// Loads that delivered an image: decoded, or fetched whole under `--no-decode`.
    var imagesLoaded = 0
    /// Rates over the wall span from the totals: with `--clients` and shards, the users' combined
    /// work over the time it took (not a sum of per-user rates, whose spans differ).
    var imagesPerS: Double { durationS > 0 ? Double(imagesDecoded) / durationS : 0 }
    var bytesPerS: Double { durationS > 0 ? Double(bytesDownloaded) / durationS : 0 }
    var cpuUserS = 0.0
    var cpuSysS = 0.0
    var peakRssMb = 0.0
    var durationS = 0.0
    /// Placeholder time over every request (see `RequestRecord.placeholder`): no survivorship. Its
    /// n is the requests it covers.
    var placeholder = DistributionSummary()
    /// Ready latency over the displayed requests (n: `displayed`), unquantised.
    var ready = DistributionSummary()
    /// Frames for which the main loop woke late (the host's fault, not the app's).
    var hostLateFrames = 0
    /// The loop woke late on more than a small share of frames: the machine, not the app, set
    /// the frame times, and the run is not ranked or gated.
    var hostOverloaded = false
    /// The run was stopped early (Ctrl-C): its numbers cover only the part it ran.
    var partial = false
    /// The server's side: time to first byte over the loads that used the network (from the
    /// ttfb stage histogram), and HTTP requests per second and failed loads per network load.
    var ttfb = DistributionSummary()
    /// The same loads' whole request: first byte and transfer (the server's answer, all of it).
    var request = DistributionSummary()
    /// TLS handshake of each new HTTPS connection (none in clear text).
    var tlsHandshake = DistributionSummary()
    /// Decode time per megapixel of the file, over the images decoded.
    var decodeMsPerMp = DistributionSummary()
    var networkConcurrencyMean = 0.0
    var networkConcurrencyPeak = 0
    var decodeConcurrencyMean = 0.0
    var decodeConcurrencyPeak = 0
    var filterConcurrencyMean = 0.0
    var filterConcurrencyPeak = 0
    var firstImage = DistributionSummary()
    var previewsShown = 0
    /// Rests of the scroll, those censored (the scroll moved on, or the run ended, before every
    /// visible row showed its image), and settle time (`SettleTime.swift`).
    var settleRests = 0
    var settleCensored = 0
    var settle = DistributionSummary()
    /// The mean over rests of the rows' mean wait at rest (`SettleSample.waitNanoseconds`).
    var restWait = DistributionSummary()
    var previewDecodes = 0
    var previewDecodeMs = 0.0
    var bytesResumed = 0
    var resumedLoads = 0
    var resumesRefused = 0
    var requestsPerS: Double { durationS > 0 ? Double(httpRequests) / durationS : 0 }
    /// Failed HTTP requests ÷ HTTP requests sent: the share of the traffic a cell sent that
    /// failed, what a server's own log gives. A cancelled transfer stays in the denominator,
    /// neither failed nor succeeded (left out, cuts, which fall on slow successes, raise the rate).
    /// Strategies still differ over one URL list, since they send different traffic: a failure is
    /// never cached and is asked for again at every appearance of its row, a success once. Through
    /// 0.6 it was requests that showed an error ÷ requests served from the network, which counted
    /// loads cancelled before they were sent and left the failed ones out: 20–133% for one mix.
    var errorRate: Double { httpRequests > 0 ? Double(httpErrors) / Double(httpRequests) : 0 }

    var memoryHitRate: Double { requests > 0 ? Double(memoryHits) / Double(requests) : 0 }
    var diskHitRate: Double { requests > 0 ? Double(diskHits) / Double(requests) : 0 }

    /// A value as reports print it.
    enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int)
        case real(Double)
    }

    /// Every metric in report order, named as in the design (CSV header, JSON keys).
    var fields: [(name: String, value: Value)] {
        Metric.catalog.map { ($0.name, $0.value(of: self)) }
    }
}

extension RunSummary {
    /// `http_errors_by_status` as summary.csv keeps it: `404:8250;timeout:3`.
    var httpErrorsByStatusText: String {
        get { httpErrorsByStatus.text }
        set { httpErrorsByStatus.text = newValue }
    }

    /// Failed loads of one class (0 when there were none).
    subscript(errors errorClass: ErrorClass) -> Int {
        get { errorsByClass[errorClass, default: 0] }
        set { errorsByClass[errorClass] = newValue }
    }
}
