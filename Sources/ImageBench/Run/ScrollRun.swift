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
}

/// One run of the simulated table: a 60 Hz main loop that scrolls along the trace, does each
/// appearing row's `cellForRow` work (memory-cache lookup, else join or start a load), applies the
/// cancel policy to rows that left, and displays delivered images. The main loop's state is owned
/// by the thread that calls `run()`; workers reach it only through the delivery inbox.
public final class ScrollRun {
    private struct ActiveLoad {
        let job: LoadJob
        let url: String
        let imageID: Int
        let origin: Int
        var waiting: [Int]
    }

    private let workload: Workload
    private let settings: RunSettings
    private let cell: RunCell
    private let scheduler: any LoadScheduling
    private let transport: any Transport
    private let pipeline: ImagePipeline
    private let memoryCache: MemoryCache
    private let inbox = DeliveryInbox()
    private let gauge: ConcurrencyGauge
    private let frameNanoseconds: UInt64

    private var requests: [RequestRecord] = []
    private var latency = LatencyHistogram()
    private var requestForRow: [Int: Int] = [:]
    private var loadForRequest: [Int: Int] = [:]
    private var loads: [Int: ActiveLoad] = [:]
    private var loadForURL: [String: Int] = [:]
    private var cancelledInFlight: [Int: (origin: Int, imageID: Int)] = [:]
    private var nextLoadID = 0
    private var visited: [Bool]

    private var cancelledQueued = 0, cancelledInflightCount = 0, wasted = 0
    private var bytesDownloaded = 0, bytesSaved = 0, savedPixels = 0
    private var imagesDecoded = 0, decodedPixels = 0
    private var decodeFilterNanoseconds: UInt64 = 0
    private var hitchNanoseconds: UInt64 = 0, droppedFrames = 0
    private var visibleRowFrames = 0, placeholderRowFrames = 0

    public init(workload: Workload, settings: RunSettings, cell: RunCell) {
        self.workload = workload
        self.settings = settings
        self.cell = cell
        frameNanoseconds = UInt64(1_000_000_000 / settings.fps)
        transport = settings.transport.make(limits: settings.fetchLimits)
        scheduler = cell.strategy.makeScheduler(concurrency: cell.concurrency, transport: transport)
        memoryCache = MemoryCache(costLimit: settings.memoryCacheBytes)
        pipeline = ImagePipeline(filter: settings.filter, memoryCache: memoryCache, decodeLimits: settings.decodeLimits)
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
        var lastProgress: UInt64 = 0

        while true {
            let intended = start + UInt64(frame) * frameNanoseconds
            MonotonicClock.sleep(until: intended)
            let workStart = MonotonicClock.now()
            let scrolling = frame < trace.count
            let visible = workload.viewport.visibleRows(at: trace[min(frame, trace.count - 1)].offset)

            deliverCompletions(frame: frame, now: workStart)
            for row in shown where !visible.contains(row) { rowDisappeared(row) }
            for row in visible where !shown.contains(row) { rowAppeared(row, frame: frame) }
            shown = visible

            var workEnd = MonotonicClock.now()
            let next = max(frame + 1, Int((workEnd - start + frameNanoseconds - 1) / frameNanoseconds))
            if scheduler.runsInline {
                // Loaded inside this frame's cellForRow: on screen at the first vsync after it.
                deliverCompletions(frame: next, now: workEnd)
                workEnd = MonotonicClock.now()
            }
            let placeholders = visible.reduce(0) { $0 + (requests[requestForRow[$1]!].outcome == .displayed ? 0 : 1) }
            visibleRowFrames += visible.count * (next - frame)
            placeholderRowFrames += placeholders * (next - frame)
            if scrolling {
                let work = workEnd - workStart
                if work > frameNanoseconds { hitchNanoseconds += work - frameNanoseconds }
                droppedFrames += next - frame - 1
            }
            if let progress, workEnd - lastProgress > 250_000_000 {
                lastProgress = workEnd
                progress(RunProgress(frame: frame, traceFrames: trace.count, rowsVisited: visited.count { $0 },
                                     requests: requests.count, displayed: requests.count { $0.outcome == .displayed },
                                     inFlight: gauge.current))
            }
            if !scrolling && (placeholders == 0 || frame >= trace.count + settleFrames) { break }
            frame = next
        }
        let end = MonotonicClock.now()
        finishOutstandingLoads()
        let usage = ResourceUsage.now() - usageBefore
        return RunResult(cell: cell, summary: summarize(duration: end - start, usage: usage), requests: requests,
                         latency: latency)
    }

    // MARK: - cellForRow and friends

    private func rowAppeared(_ row: Int, frame: Int) {
        visited[row] = true
        let imageID = workload.feed.imageForRow[row]
        let image = workload.images[imageID]
        let id = requests.count
        requestForRow[row] = id
        if memoryCache.image(for: image.url) != nil {
            requests.append(RequestRecord(id: id, row: row, imageID: imageID, url: image.url, visibleFrame: frame, source: .memory))
            display(id, frame: frame)
        } else if settings.coalesce, let loadID = loadForURL[image.url] {
            requests.append(RequestRecord(id: id, row: row, imageID: imageID, url: image.url, visibleFrame: frame, source: .merged))
            loads[loadID]!.waiting.append(id)
            loadForRequest[id] = loadID
        } else {
            requests.append(RequestRecord(id: id, row: row, imageID: imageID, url: image.url, visibleFrame: frame, source: .network))
            startLoad(imageID: imageID, origin: id)
        }
    }

    private func startLoad(imageID: Int, origin: Int) {
        let loadID = nextLoadID
        nextLoadID += 1
        let reference = workload.images[imageID]
        let request = LoadRequest(url: reference.url, expectedBytes: reference.expectedBytes)
        let submittedAt = MonotonicClock.now()
        let token = LoadToken()
        let job = LoadJob(id: loadID, token: token, priority: .visible,
                          work: PipelineLoad(pipeline: pipeline, request: request, id: loadID, token: token,
                                             submittedAt: submittedAt, gauge: gauge, inbox: inbox))
        loads[loadID] = ActiveLoad(job: job, url: reference.url, imageID: imageID, origin: origin, waiting: [origin])
        loadForRequest[origin] = loadID
        if settings.coalesce { loadForURL[reference.url] = loadID }
        scheduler.submit(job)
    }

    private func rowDisappeared(_ row: Int) {
        guard let id = requestForRow.removeValue(forKey: row) else { return }
        guard let loadID = loadForRequest.removeValue(forKey: id), requests[id].outcome == .neverDisplayed,
              var load = loads[loadID] else { return }
        load.waiting.removeAll { $0 == id }
        loads[loadID] = load
        if settings.cancelPolicy == .offscreen && load.waiting.isEmpty { cancel(loadID) }
    }

    private func cancel(_ loadID: Int) {
        guard let load = loads[loadID] else { return }
        let result = load.job.token.cancel()
        scheduler.cancel(load.job)
        switch result {
        case .tooLate:
            return  // its completion is on the way and will count as wasted
        case .whileQueued:
            cancelledQueued += 1
            requests[load.origin].cancel = .queued
            bytesSaved += workload.images[load.imageID].expectedBytes ?? 0
            savedPixels += workload.images[load.imageID].sourcePixels ?? 0
        case .inFlight:
            cancelledInflightCount += 1
            requests[load.origin].cancel = .inflight
            cancelledInFlight[loadID] = (load.origin, load.imageID)
        }
        forget(loadID, url: load.url)
    }

    private func forget(_ loadID: Int, url: String) {
        loads[loadID] = nil
        if loadForURL[url] == loadID { loadForURL[url] = nil }
    }

    private func display(_ id: Int, frame: Int) {
        let nanoseconds = UInt64(frame - requests[id].visibleFrame) * frameNanoseconds
        requests[id].outcome = .displayed
        requests[id].displayFrame = frame
        requests[id].latency = nanoseconds
        latency.record(nanoseconds: nanoseconds)
    }

    // MARK: - deliveries

    private func deliverCompletions(frame: Int, now: UInt64) {
        for completion in inbox.takeAll() {
            account(completion, deliveredAt: now)
            if let cancelled = cancelledInFlight.removeValue(forKey: completion.loadID) {
                let expected = workload.images[cancelled.imageID].expectedBytes ?? completion.bytesReceived
                bytesSaved += max(0, expected - completion.bytesReceived)
                if completion.sourcePixels == 0 { savedPixels += workload.images[cancelled.imageID].sourcePixels ?? 0 }
                attachStages(completion, to: cancelled.origin, deliveredAt: now)
                continue
            }
            guard let load = loads[completion.loadID] else { continue }
            forget(completion.loadID, url: load.url)
            attachStages(completion, to: load.origin, deliveredAt: now)
            for id in load.waiting { loadForRequest[id] = nil }
            switch completion.outcome {
            case .image:
                if load.waiting.isEmpty { wasted += 1 }
                for id in load.waiting { display(id, frame: frame) }
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

    private func account(_ completion: LoadCompletion, deliveredAt now: UInt64) {
        bytesDownloaded += completion.bytesReceived
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
        for completion in inbox.takeAll() { account(completion, deliveredAt: MonotonicClock.now()) }
        loads.removeAll()
    }

    // MARK: - summary

    private func summarize(duration: UInt64, usage: ResourceUsage) -> RunSummary {
        func count(_ source: RequestSource) -> Int { requests.count { $0.source == source } }
        let seconds = Double(duration) / 1e9
        let scrollSeconds = workload.trace.duration
        let costPerPixel = decodedPixels > 0 ? Double(decodeFilterNanoseconds) / Double(decodedPixels) : 0
        return RunSummary(
            strategy: cell.strategy.rawValue, concurrency: cell.concurrency, repetition: cell.repetition,
            network: settings.network.name, transport: settings.transport.rawValue, rows: workload.feed.rowCount, rowsVisited: visited.count { $0 },
            requests: requests.count, memoryHits: count(.memory), diskHits: count(.disk),
            networkFetches: count(.network), merged: count(.merged), errors: count(.error),
            displayed: requests.count { $0.outcome == .displayed },
            neverDisplayed: requests.count { $0.outcome == .neverDisplayed },
            cancelledQueued: cancelledQueued, cancelledInflight: cancelledInflightCount,
            bytesDownloaded: bytesDownloaded, bytesSaved: bytesSaved,
            decodeMsSaved: Double(savedPixels) * costPerPixel / 1e6, wastedCompletions: wasted,
            latencyP50Ms: latency.milliseconds(atPercentile: 50), latencyP90Ms: latency.milliseconds(atPercentile: 90),
            latencyP95Ms: latency.milliseconds(atPercentile: 95), latencyP99Ms: latency.milliseconds(atPercentile: 99),
            latencyMaxMs: latency.maxMilliseconds,
            placeholderRatio: visibleRowFrames > 0 ? Double(placeholderRowFrames) / Double(visibleRowFrames) : 0,
            hitchMsPerS: scrollSeconds > 0 ? Double(hitchNanoseconds) / 1e6 / scrollSeconds : 0,
            droppedFrames: droppedFrames, achievedConcurrencyMean: gauge.mean(), achievedConcurrencyPeak: gauge.peak,
            imagesDecoded: imagesDecoded, imagesPerS: seconds > 0 ? Double(imagesDecoded) / seconds : 0,
            bytesPerS: seconds > 0 ? Double(bytesDownloaded) / seconds : 0,
            cpuUserS: usage.userSeconds, cpuSysS: usage.systemSeconds,
            peakRssMb: ResourceUsage.peakResidentMegabytes(), durationS: seconds)
    }
}
