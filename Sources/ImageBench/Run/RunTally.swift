import Histogram

/// What one run counts as it goes, and its summary at the end: the recording side of the metric
/// catalog. Owned by the main loop's thread.
struct RunTally {
    /// A wake-up later than this share of a frame counts as late: the scheduler's usual jitter is
    /// well under a millisecond, a quarter frame (4.2 ms at 60 Hz) is a host that is behind.
    static let lateWakeShare = 0.25
    /// A run whose loop woke late on more than this share of its frames is `host_overloaded`:
    /// the machine, not the app, set its frame times.
    static let overloadedShare = 0.05

    /// Where the run records its distributions as it goes: its own (`own`), or, in a crowd
    /// stepped on one thread, the crowd's, at three digits, recorded once for all its users. A
    /// crowd user then keeps only time to first byte (at two digits) live; its own display
    /// latency, placeholder time and ready latency for clients.csv are rebuilt from its request
    /// records at the end (`summarize`), exactly as live recording gives them.
    let recorder: DistributionRecorder
    /// The user's own distributions and second-by-second series.
    private let own: DistributionRecorder
    var inCrowd: Bool { recorder !== own }

    var distributions: RunDistributions {
        get { own.all }
        set { own.all = newValue }
    }

    /// The run's second by second; offsets from `origin`, the first vsync (monotonic ns).
    var timeline: Timeline {
        get { own.timeline }
        set { own.timeline = newValue }
    }

    /// `--metrics-address`: where each report goes too, as `account` counts it (nil: nowhere).
    let live: (any LiveObserver)?

    /// `crowd`: the recorder of the crowd this user belongs to; nil, the user's own.
    init(crowd: DistributionRecorder? = nil, live: (any LiveObserver)? = nil) {
        own = DistributionRecorder(significantDigits: crowd == nil ? nil : .two)
        recorder = crowd ?? own
        self.live = live
    }

    /// An image shown at `shownAt` (monotonic ns, its vsync), `nanoseconds` after its row appeared.
    mutating func recordLatency(nanoseconds: UInt64, shownAt: UInt64) {
        recorder.timeline.displayed(latency: nanoseconds, at: shownAt - min(shownAt, origin))
        recorder.all.latency.record(nanoseconds: nanoseconds)
    }

    /// The rests of the scroll and how long the screen took to settle in each.
    var settle = SettleTracker()

    /// Previews decoded and shown (`--progressive`).
    var previews = PreviewTally()
    /// Bytes reused from cancelled transfers (`--resume`).
    var resumes = ResumeTally()

    var origin: UInt64 = 0

    /// A load that delivered its image at `finishedAt`: its stages, and its time to first byte
    /// in the second it finished.
    mutating func recordStages(_ stages: StageTimes, fromNetwork: Bool, finishedAt: UInt64) {
        if fromNetwork {
            let offset = finishedAt - min(finishedAt, origin)
            recorder.timeline.networkLoad(timeToFirstByte: stages.timeToFirstByte, transfer: stages.transfer, at: offset)
        }
        recorder.all.stages.record(stages, fromNetwork: fromNetwork)
        guard fromNetwork else { return }
        recorder.all.request.record(nanoseconds: stages.timeToFirstByte + stages.transfer)
        guard inCrowd else { return }
        // A crowd user's own, for clients.csv, at two digits as its time to first byte.
        own.all.stages.recordTimeToFirstByte(nanoseconds: stages.timeToFirstByte)
        own.all.request.record(nanoseconds: stages.timeToFirstByte + stages.transfer)
    }

    /// One image's decode time, per megapixel of its file (the crowd's, in a crowd).
    private mutating func recordDecode(nanoseconds: UInt64, sourcePixels: Int) {
        guard sourcePixels > 0 else { return }
        let perMegapixel = UInt64(Double(nanoseconds) * 1_000_000 / Double(sourcePixels))
        recorder.all.decodePerMegapixel.record(nanoseconds: perMegapixel)
    }

    /// The memory cache's hit thresholds at the run's end (the crowd's, in a crowd).
    mutating func recordMemoryHitThresholds(_ bytes: [Int]) {
        CacheSizeCurve.record(bytes, into: &recorder.all.memoryHitThresholds)
    }

    /// A crowd user's own distributions for its summary: its records' times at three digits.
    private func ownDistributions(_ requests: [RequestRecord]) -> RunDistributions {
        guard inCrowd else { return distributions }
        var own = distributions
        (own.latency, own.placeholder, own.ready) = (LatencyHistogram(), LatencyHistogram(), LatencyHistogram())
        for request in requests {
            if let latency = request.latency { own.latency.record(nanoseconds: latency) }
            if let placeholder = request.placeholder { own.placeholder.record(nanoseconds: placeholder) }
            if let ready = request.ready { own.ready.record(nanoseconds: ready) }
        }
        return own
    }

    private var loopWakes = 0, lateWakes = 0
    /// Whether the frame under way began with a late wake.
    private var wokeLate = false

    var cancelledQueued = 0, cancelledInflight = 0, wastedCompletions = 0
    var prefetchLoads = 0, prefetchCancelled = 0
    private var bytesDownloaded = 0, bytesWasted = 0, retries = 0, decodeWarnings = 0, httpRequests = 0
    /// Body sizes learned from responses (Content-Length), for sources that do not give them.
    private var learnedBytes: [Int: Int] = [:]
    /// Loads that failed, by class, whether or not a row still wanted the image.
    private var failedLoads: [ErrorClass: Int] = [:]
    /// HTTP requests that failed, by status or class; those cut by a cancel before their answer ended.
    private var httpFailures = HTTPErrorCounts(), httpCancelled = 0
    private var imagesDecoded = 0, imagesLoaded = 0, decodedPixels = 0
    private var decodeFilterNanoseconds: UInt64 = 0
    private var hitchNanoseconds: UInt64 = 0, mainBusyNanoseconds: UInt64 = 0
    var droppedFrames = 0
    private var visibleRowFrames = 0, placeholderRowFrames = 0
    /// Placeholder rows on screen × time, while the trace scrolls (the settling after it not counted).
    private var scrollingPlaceholderRowNanoseconds: UInt64 = 0

    // Savings are settled at the end of the run, per image: a cancelled download that had to be
    // done again later saved nothing.
    private var cancelledImages = Set<Int>()
    private var completedImages = Set<Int>()
    private var partialBytes: [Int: Int] = [:]

    /// A worker's report, whatever became of its load.
    mutating func account(_ completion: LoadCompletion) {
        live?.account(completion)
        // Through `own`, not `timeline`: a mutation through the computed property copies the whole
        // series (every second's histograms) and writes it back, on every completion.
        own.timeline.completed(completion, at: completion.finishedAt - min(completion.finishedAt, origin))
        bytesDownloaded += completion.bytesReceived
        retries += completion.attempts - 1
        if completion.source == .network {
            httpRequests += completion.attempts
            for failure in completion.httpFailures { httpFailures.add(failure) }
            if completion.httpCancelled { httpCancelled += 1 }
        }
        decodeWarnings += completion.decodeWarnings
        resumes.account(completion)
        if case .failed(let failure) = completion.outcome { failedLoads[failure.errorClass, default: 0] += 1 }
        // A --no-decode stand-in is an image loaded, not decoded (a modelled decode's is decoded).
        if case .image(let image) = completion.outcome {
            imagesLoaded += 1
            if image.standInCost == nil || image.modelled {
                imagesDecoded += 1
                recordDecode(nanoseconds: completion.stages.decode, sourcePixels: completion.sourcePixels)
            }
            decodedPixels += completion.sourcePixels
            decodeFilterNanoseconds += completion.stages.decode + completion.stages.filter
        }
    }

    /// What a report of a known load tells about its image: its size, whether it arrived, and
    /// for a transfer cancelled part-way, the bytes that came for nothing. During the run an
    /// image a cancelled load still produced does not count as loaded (it is loaded again if a
    /// row asks); at the end (`finalReport`) every image that arrived does.
    /// `sizeKnown`: the source gave the image's size, so the response's need not be kept.
    mutating func settle(_ completion: LoadCompletion, imageID: Int, cancelled: Bool, sizeKnown: Bool = false,
                         finalReport: Bool = false) {
        if !sizeKnown, let size = completion.bodySize { learnedBytes[imageID] = size }
        if case .image = completion.outcome, finalReport || !cancelled { completedImages.insert(imageID) }
        if cancelled {
            partialBytes[imageID, default: 0] += completion.bytesReceived
            bytesWasted += completion.bytesReceived
        }
    }

    /// A load cancelled by the policy (queued or in flight; a prefetch or a row's).
    mutating func cancelled(imageID: Int, _ result: LoadToken.CancelResult, prefetch: Bool) {
        guard result != .tooLate else { return }
        cancelledImages.insert(imageID)
        if prefetch {
            prefetchCancelled += 1
        } else if result == .whileQueued {
            cancelledQueued += 1
        } else {
            cancelledInflight += 1
        }
    }

    /// The main loop woke `late` nanoseconds after the vsync it waited for.
    mutating func woke(late: UInt64, frameNanoseconds: UInt64) {
        loopWakes += 1
        wokeLate = Double(late) > Double(frameNanoseconds) * Self.lateWakeShare
        if wokeLate { lateWakes += 1 }
    }

    /// A request's placeholder time, recorded: to the frame its image was shown in, else the one
    /// it left the screen in, else `endFrame` (still waiting when the run ended).
    mutating func placeholder(of request: RequestRecord, endFrame: Int, frameNanoseconds: UInt64) -> UInt64 {
        // A row showing a preview shows an image, not a placeholder.
        let until = request.previewFrame ?? request.displayFrame ?? request.leftFrame ?? max(endFrame, request.visibleFrame)
        let nanoseconds = UInt64(max(0, until - request.visibleFrame)) * frameNanoseconds
        recorder.all.placeholder.record(nanoseconds: nanoseconds)
        return nanoseconds
    }

    /// One frame's main-loop time and screen, over `span` vsyncs.
    mutating func frame(visibleRows: Int, placeholders: Int, span: Int, work: UInt64?, frameNanoseconds: UInt64) {
        visibleRowFrames += visibleRows * span
        placeholderRowFrames += placeholders * span
        guard let work else { return }  // only while scrolling
        scrollingPlaceholderRowNanoseconds &+= UInt64(placeholders * span) &* frameNanoseconds
        mainBusyNanoseconds += work
        if work > frameNanoseconds { hitchNanoseconds += work - frameNanoseconds }
        // The vsyncs the app's own work ran past, as its hitch time counts: a frame started late by
        // the host (`woke`) and so finished past the next vsync is the host's, not a drop. With a
        // crowd on one thread the users stepped last start a little late on every frame.
        // (A frame whose work took no time, on a clock that does not move while it works, drops none.)
        let dropped = max(0, Int((work + frameNanoseconds - 1) / frameNanoseconds) - 1)
        droppedFrames += dropped
        // A vsync missed for a late start, though the wake was not late enough to count: late too.
        if span - 1 > dropped && !wokeLate { lateWakes += 1 }
    }

    /// HTTP requests and what failed: loads by class, requests by status.
    func fillErrors(_ summary: inout RunSummary) {
        (summary.errorsByClass, summary.httpRequests, summary.httpCancelled) = (failedLoads, httpRequests, httpCancelled)
        (summary.httpErrorsByStatus, summary.httpErrors) = (httpFailures, httpFailures.total)
    }

    /// The run's row of summary.csv.
    func summarize(_ requests: [RequestRecord], of run: ScrollRun, duration: UInt64, usage: ResourceUsage) -> RunSummary {
        func count(_ source: RequestSource) -> Int { requests.count { $0.source == source } }
        let seconds = Double(duration) / 1e9
        let scrollSeconds = run.scrollSeconds
        let costPerPixel = decodedPixels > 0 ? Double(decodeFilterNanoseconds) / Double(decodedPixels) : 0
        // Net savings: only images that were cancelled and never loaded later in the run count.
        var bytesSaved = 0, savedPixels = 0
        for imageID in cancelledImages.subtracting(completedImages) {
            let image = run.workload.images[imageID]
            savedPixels += image.sourcePixels ?? 0
            if run.diskCache?.contains(image.cacheKey.text) == true { continue }  // it would have come from disk
            // Sizes came from a manifest or a peer's headers: summed without trapping.
            bytesSaved = CheckedNumber.sum(bytesSaved, max(0, (image.expectedBytes ?? learnedBytes[imageID] ?? 0) - partialBytes[imageID, default: 0]))
        }
        let disk = run.diskCache?.statistics ?? DiskCache.Statistics()
        var summary = RunSummary()
        summary.strategy = run.cell.strategy.rawValue
        summary.concurrency = run.cell.concurrency
        summary.repetition = run.cell.repetition
        summary.format = run.settings.formatLabel(run.cell.format)
        summary.network = run.settings.network.name
        // Every setting a run can vary, in its summary.csv column (from the run-flag catalog).
        for dimension in PolicyDimension.allCases {
            _ = Metric.named(dimension.rawValue)?.read(dimension.value(of: run.settings), into: &summary)
        }
        summary.rows = run.workload.feed.rowCount
        summary.rowsVisited = Set(requests.map(\.row)).count
        summary.requests = requests.count
        summary.memoryHits = count(.memory)
        summary.diskHits = count(.disk)
        summary.networkFetches = count(.network)
        summary.merged = count(.merged)
        summary.errors = count(.error)
        summary.displayed = requests.count { $0.outcome == .displayed }
        summary.neverDisplayed = requests.count { $0.outcome == .neverDisplayed }
        summary.cancelledQueued = cancelledQueued
        summary.cancelledInflight = cancelledInflight
        summary.bytesDownloaded = bytesDownloaded
        summary.bytesSaved = bytesSaved
        summary.bytesWasted = bytesWasted
        summary.decodeMsSaved = Double(savedPixels) * costPerPixel / 1e6
        summary.wastedCompletions = wastedCompletions
        summary.prefetchLoads = prefetchLoads
        summary.prefetchCancelled = prefetchCancelled
        summary.memoryEvictions = run.memoryCache.evictions
        summary.diskWrites = disk.writes
        summary.diskDiscarded = disk.discarded
        fillErrors(&summary)
        summary.retries = retries
        summary.decodeWarnings = decodeWarnings
        ownDistributions(requests).fill(&summary)
        previews.fill(&summary)
        resumes.fill(&summary)
        summary.hostLateFrames = lateWakes
        summary.hostOverloaded = loopWakes > 0 && Double(lateWakes) > Double(loopWakes) * Self.overloadedShare
        summary.placeholderRatio = visibleRowFrames > 0 ? Double(placeholderRowFrames) / Double(visibleRowFrames) : 0
        summary.hitchMsPerS = scrollSeconds > 0 ? Double(hitchNanoseconds) / 1e6 / scrollSeconds : 0
        summary.placeholderRowSecondsPerS = scrollSeconds > 0 ? Double(scrollingPlaceholderRowNanoseconds) / 1e9 / scrollSeconds : 0
        summary.mainBusyMsPerS = scrollSeconds > 0 ? Double(mainBusyNanoseconds) / 1e6 / scrollSeconds : 0
        summary.droppedFrames = droppedFrames
        summary.achievedConcurrencyMean = run.gauge.mean()
        summary.achievedConcurrencyPeak = run.gauge.peak
        let stages = run.pipeline.stages
        (summary.networkConcurrencyMean, summary.networkConcurrencyPeak) = (stages.network.activeMean(), stages.network.peak)
        (summary.decodeConcurrencyMean, summary.decodeConcurrencyPeak) = (stages.decoding.activeMean(), stages.decoding.peak)
        (summary.filterConcurrencyMean, summary.filterConcurrencyPeak) = (stages.filtering.activeMean(), stages.filtering.peak)
        summary.imagesDecoded = imagesDecoded
        summary.imagesLoaded = imagesLoaded
        summary.cpuUserS = usage.userSeconds
        summary.cpuSysS = usage.systemSeconds
        summary.peakRssMb = ResourceUsage.peakResidentMegabytes()
        summary.durationS = seconds
        return summary
    }
}
