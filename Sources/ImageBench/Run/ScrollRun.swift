import Foundation

/// How far a run has got, for progress lines.
public struct RunProgress: Sendable {
    public let frame: Int
    public let traceFrames: Int
    public let rowsVisited: Int
    public let requests: Int
    public let displayed: Int
    public let inFlight: Int
}

/// Everything one run measured.
public struct RunResult: Sendable {
    public let cell: RunCell
    public let summary: RunSummary
    public let requests: [RequestRecord]
    public let latency: LatencyHistogram
    public let stages: StageHistograms
    /// What the embedded server saw during this run: the ground truth for faults it injected.
    public var server: ServerCounts?
    /// With `--clients`: each simulated user's own summary (this result combines them).
    public var clients: [(client: Int, summary: RunSummary)] = []
}

/// Requests the embedded server answered, and the faults it injected, over some span.
public struct ServerCounts: Sendable, Equatable {
    public var requests: Int
    public var faults: [ServerFaults.Kind: Int]

    public static func - (after: ServerCounts, before: ServerCounts) -> ServerCounts {
        ServerCounts(requests: after.requests - before.requests,
                     faults: after.faults.merging(before.faults.mapValues { -$0 }, uniquingKeysWith: +))
    }
}

/// One run of the simulated table: a main loop at `fps` that scrolls along the trace, does each
/// appearing row's `cellForRow` work (memory-cache lookup, else join or start a load), applies the
/// cancel policy to rows that left, prefetches ahead, and displays delivered images. The main
/// loop's state is owned by the thread that calls `run()`; workers reach it only through the
/// delivery inbox.
public final class ScrollRun {
    private struct ActiveLoad {
        let job: LoadJob
        let key: String
        let imageID: Int
        /// The request that started it; nil for a prefetch.
        let origin: Int?
        /// The row a prefetch was started for.
        let prefetchRow: Int?
        var waiting: [Int]
        /// Cancelled while its transfer ran: it stays registered until its worker reports, so a
        /// row asking for the same image meanwhile waits for it to end and then starts afresh,
        /// rather than putting the same URL on the wire twice.
        var cancelled = false
    }

    private let workload: Workload
    private let settings: RunSettings
    private let cell: RunCell
    private let scheduler: any LoadScheduling
    private let transport: any Transport
    private let pipeline: ImagePipeline
    private let memoryCache: MemoryCache
    private let diskCache: DiskCache?
    private let inbox = DeliveryInbox()
    private let gauge: ConcurrencyGauge
    private let frameNanoseconds: UInt64

    private var requests: [RequestRecord] = []
    private var latency = LatencyHistogram()
    private var stageHistograms = StageHistograms()
    private var requestForRow: [Int: Int] = [:]
    private var loadForRequest: [Int: Int] = [:]
    private var loads: [Int: ActiveLoad] = [:]
    private var loadForKey: [String: Int] = [:]
    private var prefetching: [Int: Int] = [:]  // row → prefetch load
    private var deferred: [Int] = []  // requests waiting for the scroll to stop (suspend policy)
    private var nextLoadID = 0
    private var visited: [Bool]
    private var inlineDelivery = false

    // Savings are settled at the end of the run, per image: a cancelled download that had to be
    // done again later saved nothing.
    private var cancelledImages = Set<Int>()
    private var completedImages = Set<Int>()
    private var partialBytes: [Int: Int] = [:]

    private var cancelledQueued = 0, cancelledInflightCount = 0, wasted = 0
    private var prefetchLoads = 0, prefetchCancelled = 0
    private let stop: StopRequest?
    private let client: Int
    private var bytesDownloaded = 0, bytesWasted = 0, retries = 0, decodeWarnings = 0, httpRequests = 0
    /// Body sizes learned from responses (Content-Length), for sources that do not give them.
    private var learnedBytes: [Int: Int] = [:]
    /// Loads that failed, by class, whether or not a row still wanted the image.
    private var failedLoads: [ErrorClass: Int] = [:]
    private var imagesDecoded = 0, decodedPixels = 0
    private var decodeFilterNanoseconds: UInt64 = 0
    private var hitchNanoseconds: UInt64 = 0, droppedFrames = 0, mainBusyNanoseconds: UInt64 = 0
    private var visibleRowFrames = 0, placeholderRowFrames = 0

    /// `transport` replaces the one `settings` names (tests wrap it to watch the traffic).
    public init(workload: Workload, settings: RunSettings, cell: RunCell, diskCache: DiskCache? = nil,
                transport: (any Transport)? = nil, stop: StopRequest? = nil, client: Int = 0) {
        self.stop = stop
        self.client = client
        self.workload = workload
        self.settings = settings
        self.cell = cell
        self.diskCache = diskCache
        frameNanoseconds = UInt64(1_000_000_000 / settings.fps)
        self.transport = transport ?? settings.transport.make(limits: settings.fetchLimits, client: client)
        scheduler = cell.strategy.makeScheduler(concurrency: cell.concurrency)
        memoryCache = MemoryCache(costLimit: settings.memoryCacheBytes)
        pipeline = ImagePipeline(decoder: settings.injection.slowing(decoder: ImageDecoder()),
                                 processor: settings.injection.slowing(processor: settings.filter),
                                 memoryCache: memoryCache, diskCache: diskCache,
                                 decodeLimits: settings.decodeLimits, retry: settings.retry, decodes: settings.decodes)
        gauge = ConcurrencyGauge()
        visited = Array(repeating: false, count: workload.feed.rowCount)
    }

    public func run(progress: ((RunProgress) -> Void)? = nil) -> RunResult {
        ResourceUsage.resetPeakResidentMemory()
        let usageBefore = ResourceUsage.now()
        let trace = workload.trace.frames
        let settleFrames = Int(settings.settleSeconds * Double(settings.fps))
        let start = MonotonicClock.now() + frameNanoseconds
        var frame = 0
        var shown = 0..<0
        var lastOffset = trace.first?.offset ?? 0
        var downward = true
        var lastProgress: UInt64 = 0

        var partial = false
        while true {
            MonotonicClock.sleep(until: start + UInt64(frame) * frameNanoseconds)
            if stop?.isRequested == true {
                partial = true
                break
            }
            var workStart = MonotonicClock.now()
            // Woken more than a frame late (a busy machine): the vsyncs in between are gone, and
            // this work belongs to the frame now on screen.
            let current = Int((workStart - start) / frameNanoseconds)
            if current > frame {
                if frame < trace.count { droppedFrames += min(current, trace.count) - frame }
                frame = current
                workStart = MonotonicClock.now()
            }
            let scrolling = frame < trace.count
            let position = trace[min(frame, trace.count - 1)]
            let moving = position.dragging || position.offset != lastOffset
            if position.offset != lastOffset { downward = position.offset > lastOffset }
            lastOffset = position.offset
            let visible = workload.viewport.visibleRows(at: position.offset)
            inlineDelivery = scheduler.runsInline

            deliverCompletions(frame: frame, now: workStart)
            for row in shown where !visible.contains(row) { rowDisappeared(row) }
            for row in visible where !shown.contains(row) { rowAppeared(row, frame: frame, moving: moving) }
            shown = visible
            if !moving && !deferred.isEmpty { startDeferred(frame: frame) }
            if settings.prefetch > 0 { prefetch(around: visible, downward: downward) }

            var workEnd = MonotonicClock.now()
            let next = max(frame + 1, Int((workEnd - start + frameNanoseconds - 1) / frameNanoseconds))
            if inlineDelivery {
                // Loaded inside this frame's cellForRow: on screen at the first vsync after it.
                deliverCompletions(frame: next, now: workEnd)
                workEnd = MonotonicClock.now()
            }
            let placeholders = visible.reduce(0) { $0 + (requests[requestForRow[$1]!].outcome == .displayed ? 0 : 1) }
            visibleRowFrames += visible.count * (next - frame)
            placeholderRowFrames += placeholders * (next - frame)
            if scrolling {
                let work = workEnd - workStart
                mainBusyNanoseconds += work
                if work > frameNanoseconds { hitchNanoseconds += work - frameNanoseconds }
                droppedFrames += next - frame - 1
            }
            if let progress, workEnd - lastProgress > 250_000_000 {
                lastProgress = workEnd
                progress(RunProgress(frame: frame, traceFrames: trace.count, rowsVisited: visited.count { $0 },
                                     requests: requests.count, displayed: requests.count { $0.outcome == .displayed },
                                     inFlight: gauge.current))
            }
            // Settled: nothing on screen is waiting and no load is still under way (or out of time).
            if !scrolling && ((placeholders == 0 && loads.isEmpty) || frame >= trace.count + settleFrames) { break }
            frame = next
        }
        let end = MonotonicClock.now()
        finishOutstandingLoads()
        let usage = ResourceUsage.now() - usageBefore
        var summary = summarize(duration: end - start, usage: usage)
        summary.partial = partial
        return RunResult(cell: cell, summary: summary, requests: requests, latency: latency, stages: stageHistograms)
    }

    // MARK: - cellForRow and friends

    private func rowAppeared(_ row: Int, frame: Int, moving: Bool) {
        visited[row] = true
        let imageID = workload.feed.imageForRow[row]
        let image = workload.images[imageID]
        let id = requests.count
        requestForRow[row] = id
        func record(_ source: RequestSource) {
            var request = RequestRecord(id: id, row: row, imageID: imageID, url: image.url, visibleFrame: frame,
                                        requestedAt: MonotonicClock.now(), source: source)
            request.client = client
            requests.append(request)
        }
        if let cached = memoryCache.image(for: image.cacheKey) {
            record(.memory)
            display(id, frame: frame, size: cached.size)
        } else if settings.coalesce, let loadID = loadForKey[image.cacheKey] {
            // Joining a load that is being cancelled means a fresh fetch once it has stopped.
            record(loads[loadID]!.cancelled ? .network : .merged)
            join(id, loadID)
        } else if settings.diskRead == .main, let diskCache, diskCache.contains(image.cacheKey),
                  let completion = pipeline.loadFromDiskNaively(LoadRequest(url: image.url, cacheKey: image.cacheKey, expectedBytes: image.expectedBytes),
                                                         id: nextLoadID, submittedAt: MonotonicClock.now()) {
            // The classic mistake: read and decode the cached file right here in cellForRow.
            record(.disk)
            _ = register(imageID: imageID, origin: id, prefetchRow: nil, priority: .visible)
            inbox.post(completion)
            inlineDelivery = true
        } else {
            record(.network)
            if settings.cancelPolicy == .suspendWhileDragging && moving {
                deferred.append(id)  // the tutorial's cellForRow: no load while the table moves
            } else {
                startLoad(imageID: imageID, origin: id)
            }
        }
    }

    private func join(_ id: Int, _ loadID: Int) {
        loads[loadID]!.waiting.append(id)
        loadForRequest[id] = loadID
    }

    /// The scroll stopped: load what is on screen now (the tutorial's loadImagesForOnscreenCells).
    private func startDeferred(frame: Int) {
        for id in deferred where requestForRow[requests[id].row] == id && requests[id].outcome == .neverDisplayed {
            let key = workload.images[requests[id].imageID].cacheKey
            if let cached = memoryCache.image(for: key) {
                // Another row loaded it meanwhile; it still waited for the scroll to stop.
                requests[id].source = .memory
                display(id, frame: frame, size: cached.size)
            } else if settings.coalesce, let loadID = loadForKey[key] {
                if !loads[loadID]!.cancelled { requests[id].source = .merged }
                join(id, loadID)
            } else {
                startLoad(imageID: requests[id].imageID, origin: id)
            }
        }
        deferred.removeAll()
    }

    private func startLoad(imageID: Int, origin: Int?, prefetchRow: Int? = nil) {
        let loadID = register(imageID: imageID, origin: origin, prefetchRow: prefetchRow,
                              priority: prefetchRow == nil ? .visible : .prefetch)
        scheduler.submit(loads[loadID]!.job)
    }

    /// Creates the bookkeeping for a load (and its job) without submitting it.
    private func register(imageID: Int, origin: Int?, prefetchRow: Int?, priority: LoadPriority) -> Int {
        let loadID = nextLoadID
        nextLoadID += 1
        let reference = workload.images[imageID]
        let request = LoadRequest(url: reference.url, cacheKey: reference.cacheKey, expectedBytes: reference.expectedBytes)
        let token = LoadToken()
        let job = LoadJob(id: loadID, token: token, priority: priority,
                          // Queue wait counts from when the row asked, so time spent deferred or
                          // waiting for a cancelled transfer to stop is in it too.
                          work: PipelineLoad(pipeline: pipeline, transport: transport, request: request, id: loadID, token: token,
                                             submittedAt: origin.map { requests[$0].requestedAt } ?? MonotonicClock.now(),
                                             gauge: gauge, inbox: inbox))
        loads[loadID] = ActiveLoad(job: job, key: reference.cacheKey, imageID: imageID, origin: origin,
                                   prefetchRow: prefetchRow, waiting: origin.map { [$0] } ?? [])
        if let origin { loadForRequest[origin] = loadID }
        if let prefetchRow {
            prefetching[prefetchRow] = loadID
            prefetchLoads += 1
        }
        if settings.coalesce { loadForKey[reference.cacheKey] = loadID }
        return loadID
    }

    private func rowDisappeared(_ row: Int) {
        guard let id = requestForRow.removeValue(forKey: row) else { return }
        guard let loadID = loadForRequest.removeValue(forKey: id), requests[id].outcome == .neverDisplayed,
              var load = loads[loadID] else { return }
        load.waiting.removeAll { $0 == id }
        loads[loadID] = load
        if settings.cancelPolicy != .none && load.waiting.isEmpty { cancel(loadID) }
    }

    /// Starts low-priority loads for the `prefetch` rows ahead and cancels prefetches whose rows
    /// fell out of that range without becoming visible.
    private func prefetch(around visible: Range<Int>, downward: Bool) {
        let count = settings.prefetch, rows = workload.feed.rowCount
        let ahead = downward ? visible.upperBound..<min(rows, visible.upperBound + count)
                             : max(0, visible.lowerBound - count)..<visible.lowerBound
        if settings.cancelPolicy != .none {
            for (row, loadID) in prefetching where !ahead.contains(row) {
                prefetching[row] = nil
                if let load = loads[loadID], load.waiting.isEmpty { cancel(loadID) }
            }
        }
        for row in ahead where prefetching[row] == nil {
            let imageID = workload.feed.imageForRow[row]
            let key = workload.images[imageID].cacheKey
            guard loadForKey[key] == nil, memoryCache.image(for: key) == nil else { continue }
            startLoad(imageID: imageID, origin: nil, prefetchRow: row)
        }
    }

    private func cancel(_ loadID: Int) {
        guard let load = loads[loadID] else { return }
        let result = load.job.token.cancel()
        scheduler.cancel(load.job)
        if let row = load.prefetchRow, prefetching[row] == loadID { prefetching[row] = nil }
        switch result {
        case .tooLate:
            return  // its completion is on the way
        case .whileQueued:
            if load.origin == nil { prefetchCancelled += 1 } else { cancelledQueued += 1 }
            if let origin = load.origin { requests[origin].cancel = .queued }
        case .inFlight:
            if load.origin == nil { prefetchCancelled += 1 } else { cancelledInflightCount += 1 }
            if let origin = load.origin { requests[origin].cancel = .inflight }
            cancelledImages.insert(load.imageID)
            loads[loadID]!.cancelled = true
            if let row = load.prefetchRow, prefetching[row] == loadID { prefetching[row] = nil }
            return
        }
        cancelledImages.insert(load.imageID)
        forget(loadID, key: load.key)
    }

    private func forget(_ loadID: Int, key: String) {
        if let row = loads[loadID]?.prefetchRow, prefetching[row] == loadID { prefetching[row] = nil }
        loads[loadID] = nil
        if loadForKey[key] == loadID { loadForKey[key] = nil }
    }

    private func display(_ id: Int, frame: Int, size: PixelSize) {
        let nanoseconds = UInt64(frame - requests[id].visibleFrame) * frameNanoseconds
        requests[id].outcome = .displayed
        requests[id].displayedSize = size
        requests[id].displayFrame = frame
        requests[id].latency = nanoseconds
        latency.record(nanoseconds: nanoseconds)
    }

    // MARK: - deliveries

    private func deliverCompletions(frame: Int, now: UInt64) {
        for completion in inbox.takeAll() {
            account(completion)
            guard let load = loads[completion.loadID] else { continue }
            if let size = completion.bodySize { learnedBytes[load.imageID] = size }
            forget(completion.loadID, key: load.key)
            if load.cancelled {
                partialBytes[load.imageID, default: 0] += completion.bytesReceived
                bytesWasted += completion.bytesReceived
                if let origin = load.origin { attachStages(completion, to: origin, deliveredAt: now) }
                restart(load)
                continue
            }
            if let origin = load.origin {
                attachStages(completion, to: origin, deliveredAt: now)
                if completion.source == .disk && requests[origin].source == .network { requests[origin].source = .disk }
            }
            for id in load.waiting { loadForRequest[id] = nil }
            switch completion.outcome {
            case .image(let image):
                completedImages.insert(load.imageID)
                var stages = completion.stages
                stages.delivery = now - min(now, completion.finishedAt)
                stageHistograms.record(stages, fromNetwork: completion.source == .network)
                if load.waiting.isEmpty && load.origin != nil { wasted += 1 }
                for id in load.waiting { display(id, frame: frame, size: image.size) }
            case .failed(let failure):
                for id in load.waiting {
                    requests[id].source = .error
                    requests[id].outcome = .error
                    requests[id].errorClass = failure.errorClass
                    requests[id].errorMessage = failure.description
                }
            case .cancelled:
                break
            }
        }
    }

    /// Rows that asked for an image while its cancelled transfer was stopping get a fresh load.
    private func restart(_ load: ActiveLoad) {
        guard let first = load.waiting.first else { return }
        for id in load.waiting { loadForRequest[id] = nil }
        startLoad(imageID: load.imageID, origin: first)
        for id in load.waiting.dropFirst() {
            requests[id].source = .merged
            join(id, loadForRequest[first]!)
        }
    }

    private func account(_ completion: LoadCompletion) {
        bytesDownloaded += completion.bytesReceived
        retries += completion.attempts - 1
        if completion.source == .network { httpRequests += completion.attempts }
        decodeWarnings += completion.decodeWarnings
        if case .failed(let failure) = completion.outcome { failedLoads[failure.errorClass, default: 0] += 1 }
        if case .image = completion.outcome {
            imagesDecoded += 1
            decodedPixels += completion.sourcePixels
            decodeFilterNanoseconds += completion.stages.decode + completion.stages.filter
        }
    }

    private func attachStages(_ completion: LoadCompletion, to id: Int, deliveredAt now: UInt64) {
        var stages = completion.stages
        stages.delivery = now - min(now, completion.finishedAt)
        requests[id].stages = stages
        requests[id].bytes = completion.bytesReceived
        requests[id].decodeWarnings = completion.decodeWarnings
    }

    /// The run is over: cancel what is still loading (not counted as policy savings), wait for
    /// the workers, and count the bytes that still arrived.
    private func finishOutstandingLoads() {
        for load in loads.values {
            _ = load.job.token.cancel()
            scheduler.cancel(load.job)
        }
        scheduler.waitUntilIdle()
        scheduler.shutdown()
        transport.shutdown()
        for completion in inbox.takeAll() {
            account(completion)
            guard let load = loads[completion.loadID] else { continue }
            if let size = completion.bodySize { learnedBytes[load.imageID] = size }
            if case .image = completion.outcome { completedImages.insert(load.imageID) }
            if load.cancelled {
                partialBytes[load.imageID, default: 0] += completion.bytesReceived
                bytesWasted += completion.bytesReceived
            }
        }
        loads.removeAll()
    }

    // MARK: - summary

    private func summarize(duration: UInt64, usage: ResourceUsage) -> RunSummary {
        func count(_ source: RequestSource) -> Int { requests.count { $0.source == source } }
        let seconds = Double(duration) / 1e9
        let scrollSeconds = workload.trace.duration
        let costPerPixel = decodedPixels > 0 ? Double(decodeFilterNanoseconds) / Double(decodedPixels) : 0
        // Net savings: only images that were cancelled and never loaded later in the run count.
        var bytesSaved = 0, savedPixels = 0
        for imageID in cancelledImages.subtracting(completedImages) {
            let image = workload.images[imageID]
            savedPixels += image.sourcePixels ?? 0
            if diskCache?.contains(image.cacheKey) == true { continue }  // it would have come from disk
            bytesSaved += max(0, (image.expectedBytes ?? learnedBytes[imageID] ?? 0) - partialBytes[imageID, default: 0])
        }
        let disk = diskCache?.statistics ?? DiskCache.Statistics()
        var summary = RunSummary(
            strategy: cell.strategy.rawValue, concurrency: cell.concurrency, repetition: cell.repetition,
            network: settings.network.name, transport: settings.transport.rawValue, rows: workload.feed.rowCount,
            rowsVisited: visited.count { $0 },
            requests: requests.count, memoryHits: count(.memory), diskHits: count(.disk),
            networkFetches: count(.network), merged: count(.merged), errors: count(.error),
            displayed: requests.count { $0.outcome == .displayed },
            neverDisplayed: requests.count { $0.outcome == .neverDisplayed },
            cancelledQueued: cancelledQueued, cancelledInflight: cancelledInflightCount,
            bytesDownloaded: bytesDownloaded, bytesSaved: bytesSaved, bytesWasted: bytesWasted,
            decodeMsSaved: Double(savedPixels) * costPerPixel / 1e6, wastedCompletions: wasted,
            prefetchLoads: prefetchLoads, prefetchCancelled: prefetchCancelled,
            memoryEvictions: memoryCache.evictions, diskWrites: disk.writes, diskDiscarded: disk.discarded,
            latencyP50Ms: latency.milliseconds(atPercentile: 50), latencyP90Ms: latency.milliseconds(atPercentile: 90),
            latencyP95Ms: latency.milliseconds(atPercentile: 95), latencyP99Ms: latency.milliseconds(atPercentile: 99),
            latencyMaxMs: latency.maxMilliseconds,
            placeholderRatio: visibleRowFrames > 0 ? Double(placeholderRowFrames) / Double(visibleRowFrames) : 0,
            hitchMsPerS: scrollSeconds > 0 ? Double(hitchNanoseconds) / 1e6 / scrollSeconds : 0,
            mainBusyMsPerS: scrollSeconds > 0 ? Double(mainBusyNanoseconds) / 1e6 / scrollSeconds : 0,
            droppedFrames: droppedFrames, achievedConcurrencyMean: gauge.mean(), achievedConcurrencyPeak: gauge.peak,
            imagesDecoded: imagesDecoded, imagesPerS: seconds > 0 ? Double(imagesDecoded) / seconds : 0,
            bytesPerS: seconds > 0 ? Double(bytesDownloaded) / seconds : 0,
            cpuUserS: usage.userSeconds, cpuSysS: usage.systemSeconds,
            peakRssMb: ResourceUsage.peakResidentMegabytes(), durationS: seconds)
        summary.errorsByClass = failedLoads
        summary.retries = retries
        summary.httpRequests = httpRequests
        summary.decodeWarnings = decodeWarnings
        return summary
    }
}
