import Foundation

/// One run of the simulated table: a main loop at `fps` that scrolls along the trace, does each
/// appearing row's `cellForRow` work (memory-cache lookup, else join or start a load), applies the
/// cancel policy to rows that left, prefetches ahead, and displays delivered images. The main
/// loop's state is owned by the thread that calls `run()`; workers reach it only through the
/// delivery inbox.
final class ScrollRun {
    /// The feed and the trace of the session under way (a looping user gets a new trace for each).
    private(set) var workload: Workload
    let settings: RunSettings
    let cell: RunCell
    let memoryCache: MemoryCache
    let diskCache: DiskCache?
    let gauge: ConcurrencyGauge
    /// Where the main loop waits for each vsync and every time of the run is read.
    let clock: any RunClock
    let transport: any Transport
    let pipeline: ImagePipeline
    let inbox = DeliveryInbox()
    /// The inbox's buffers while the main loop reads them (`DeliveryInbox.takeAll(into:)`).
    var delivered: [LoadCompletion] = [], previewed: [LoadPreview] = []
    let frameNanoseconds: UInt64
    let stop: StopRequest?
    let client: Int
    let registry: LoadRegistry

    /// Every request and its transitions.
    var book = RequestBook()
    var tally: RunTally
    var inlineDelivery = false

    /// `transport` replaces the one `settings` names (tests wrap it to watch the traffic).
    /// `crowd`: the distributions of the crowd this user belongs to, recorded on the crowd's thread.
    /// `live`: the cell's live metrics (`--metrics-address`), for a measured run.
    init(workload: Workload, settings: RunSettings, cell: RunCell, diskCache: DiskCache? = nil,
                transport: (any Transport)? = nil, stop: StopRequest? = nil, client: Int = 0,
                crowd: DistributionRecorder? = nil, live: (any LiveObserver)? = nil, clock: any RunClock = .monotonic,
                modelled: ModelledDecodes? = nil) {
        tally = RunTally(crowd: crowd, live: live)
        self.clock = clock
        gauge = ConcurrencyGauge(clock: clock)
        self.stop = stop
        self.client = client
        self.workload = workload
        self.settings = settings
        self.cell = cell
        self.diskCache = diskCache
        frameNanoseconds = UInt64(1_000_000_000 / settings.fps)
        let transport = transport ?? settings.transport.make(limits: settings.fetchLimits, client: client,
                                                             keepsBodies: settings.decodes)
        self.transport = transport
        memoryCache = MemoryCache(costLimit: settings.memoryCacheBytes, logsAccesses: CacheSizeCurve.isRecorded(settings))
        // `--inject` slows the decoder and the filter by wrapping them; nothing else knows.
        let pipeline = ImagePipeline(decoder: settings.injection.slowing(decoder: ImageDecoder()),
                                     processor: settings.injection.slowing(processor: settings.filter),
                                     memoryCache: memoryCache, diskCache: diskCache,
                                     decodeLimits: settings.decodeLimits, retry: settings.retry, decodes: settings.decodes,
                                     stages: PipelineStages(decodeConcurrency: settings.decodeConcurrency,
                                                            filterConcurrency: settings.filterConcurrency, clock: clock, cpu: modelled?.cpu),
                                     timeoutMilliseconds: settings.fetchLimits.timeoutMilliseconds, clock: clock, modelled: modelled)
        self.pipeline = pipeline
        let (gauge, inbox) = (self.gauge, self.inbox)
        let partials = settings.resume == true ? PartialDownloads() : nil
        let progressive = settings.progressive == true
        registry = LoadRegistry(scheduler: cell.strategy.makeScheduler(concurrency: cell.concurrency), coalesce: settings.coalesce,
                                observe: { id in
            LoadObservers(body: progressive ? ProgressivePreviewer(loadID: id, pipeline: pipeline, offload: !transport.blocksCaller) {
                inbox.post($0)
            } : nil, partials: partials)
        }) { task in
            PipelineLoad(pipeline: pipeline, transport: transport, task: task, gauge: gauge, inbox: inbox)
        }
    }

    /// Where the main loop is: owned by the thread that steps it.
    struct LoopState {
        var start: UInt64 = 0, frame = 0, shown = 0..<0, lastOffset = 0.0, downward = true
        var lastProgress: UInt64 = 0, partial = false
        /// The session under way (`--duration`, `--stages`): its number, the frame its trace began
        /// at, and the seconds the sessions before it scrolled.
        var session = 0, sessionStart = 0, earlierScrollSeconds = 0.0
        /// When the last frame was done (the run's end, whenever `finish` is called).
        var end: UInt64?
        var usageBefore = ResourceUsage(userSeconds: 0, systemSeconds: 0)
    }
    var loop = LoopState()
    /// This user's time under a load model: sessions loop until `deadline` (monotonic ns), which
    /// cuts the one under way; nil: one session, to its end.
    var window: (deadline: UInt64?, loops: Bool) = (nil, false)

    /// Runs the whole trace on the calling thread: a main loop that sleeps until each vsync.
    func run(progress: ((RunProgress) -> Void)? = nil) -> RunResult {
        begin(at: clock.now() + frameNanoseconds)
        return runBegun(progress: progress)
    }

    /// The main loop of a run whose clock `begin` started.
    func runBegun(progress: ((RunProgress) -> Void)?) -> RunResult {
        runFrames(progress: progress)
        return finish()
    }

    /// Steps every frame to the last, sleeping until each vsync; `finish` sums the run up.
    func runFrames(progress: ((RunProgress) -> Void)?) {
        while true {
            clock.sleep(until: nextVsync)
            if !step(progress: progress) { break }
        }
    }

    /// Starts the clock: the first frame's vsync is `start`. `origin`: where the cell's seconds
    /// count from in the time series (users of a load model start at their own times); a crowd
    /// resets the peak-memory mark once for all its users (`origin` given), not at each arrival.
    func begin(at start: UInt64, origin: UInt64? = nil) {
        if origin == nil { ResourceUsage.resetPeakResidentMemory() }
        loop = LoopState(start: start, lastOffset: workload.trace.frames.first?.offset ?? 0, usageBefore: ResourceUsage.now())
        tally.origin = origin ?? start
        tally.live?.userBegan()
        // A budget round's trace is another session's: its rests are other rests, and pair only with that round's.
        tally.settle.begin(workload.trace, client: client, session: cell.trace, frameNanoseconds: frameNanoseconds, at: 0)
    }

    /// The seconds this user scrolled: whole sessions, and the part of the last one it reached.
    var scrollSeconds: Double {
        let last = workload.trace.duration
        guard loop.session > 0 || window.deadline != nil else { return last }
        return loop.earlierScrollSeconds + min(last, Double(loop.frame - loop.sessionStart) / Double(settings.fps))
    }

    /// A looping user's trace is over: the next session starts at `frame` on a trace of its own.
    private func nextSession(at frame: Int) {
        loop.earlierScrollSeconds += workload.trace.duration
        loop.session += 1
        loop.sessionStart = frame
        workload = workload.session(loop.session, ofClient: client, settings: settings)
        tally.settle.begin(workload.trace, client: client, session: loop.session, frameNanoseconds: frameNanoseconds, at: frame)
    }

    /// The vsync the loop waits for next.
    var nextVsync: UInt64 { loop.start + UInt64(loop.frame) * frameNanoseconds }

    /// One frame of the main loop, woken at (or after) `nextVsync`; false when the run is over.
    func step(progress: ((RunProgress) -> Void)? = nil) -> Bool {
        let settleFrames = Int(settings.settleSeconds * Double(settings.fps))
        let (start, vsync) = (loop.start, nextVsync)
        var frame = loop.frame
        if stop?.isRequested == true {
            loop.partial = true
            return ended()
        }
        var workStart = clock.now()
        if let deadline = window.deadline, workStart >= deadline { return ended() }  // the user's time is up
        // How late the host woke the loop: its fault, not the app's (the app's own overrun
        // already moved `frame` past its work, so this wait was for a vsync still ahead).
        tally.woke(late: workStart - min(workStart, vsync), frameNanoseconds: frameNanoseconds)
        // Woken more than a frame late (a busy machine): the vsyncs in between are gone, and
        // this work belongs to the frame now on screen.
        let current = Int((workStart - start) / frameNanoseconds)
        if current > frame {
            frame = current
            workStart = clock.now()
        }
        loop.frame = frame
        if window.loops && frame - loop.sessionStart >= workload.trace.frames.count { nextSession(at: frame) }
        let trace = workload.trace.frames, index = frame - loop.sessionStart
        let scrolling = index < trace.count
        let position = trace[min(index, trace.count - 1)]
        let moving = position.dragging || position.offset != loop.lastOffset
        if position.offset != loop.lastOffset { loop.downward = position.offset > loop.lastOffset }
        loop.lastOffset = position.offset
        let visible = workload.viewport.visibleRows(at: position.offset)
        inlineDelivery = registry.scheduler.runsInline

        deliverCompletions(frame: frame, now: workStart)
        for row in loop.shown where !visible.contains(row) { rowDisappeared(row, frame: frame) }
        for row in visible where !loop.shown.contains(row) { rowAppeared(row, frame: frame, moving: moving) }
        loop.shown = visible
        if !moving && !book.deferred.isEmpty { startDeferred(frame: frame) }
        if settings.prefetch > 0 { prefetch(around: visible, downward: loop.downward) }

        var workEnd = clock.now()
        let next = max(frame + 1, Int((workEnd - start + frameNanoseconds - 1) / frameNanoseconds))
        if inlineDelivery {
            // Loaded inside this frame's cellForRow: on screen at the first vsync after it.
            deliverCompletions(frame: next, now: workEnd)
            workEnd = clock.now()
        }
        let placeholders = visible.reduce(0) { $0 + (book[book.request(onRow: $1)!].outcome == .displayed ? 0 : 1) }
        tally.frame(visibleRows: visible.count, placeholders: placeholders, span: next - frame,
                    work: scrolling ? workEnd - workStart : nil, frameNanoseconds: frameNanoseconds)
        tally.settle.frame(frame, base: loop.sessionStart, waiting: placeholders, visible: visible.count, frameNanoseconds: frameNanoseconds)
        if let progress, workEnd - loop.lastProgress > 250_000_000 {
            loop.lastProgress = workEnd
            progress(progressReport(frame: frame))
        }
        // Settled: nothing on screen is waiting and no load is still under way (or out of time).
        if !scrolling && ((placeholders == 0 && registry.isEmpty) || index >= trace.count + settleFrames) { return ended() }
        loop.frame = next
        return true
    }

    /// The last frame is done: the clock stops and what is still loading is cancelled.
    private func ended() -> Bool {
        loop.end = clock.now()
        tally.live?.userEnded()
        registry.cancelAll()
        return false
    }

    /// Ends the run after its last frame: waits for the loads still under way and sums it up.
    /// `usageAtEnd`: the process's CPU when the last frame was done, where other users' work
    /// went on after it (a crowd sums its users up only after all their frames; else each
    /// user's CPU would count the summing up of those finished before it).
    func finish(usageAtEnd: ResourceUsage? = nil) -> RunResult {
        let end = loop.end ?? clock.now()
        let frame = loop.frame
        finishOutstandingLoads()
        book.closePlaceholders { tally.placeholder(of: $0, endFrame: frame, frameNanoseconds: frameNanoseconds) }
        tally.recordMemoryHitThresholds(memoryCache.hitThresholds())
        tally.settle.end(at: frame, frameNanoseconds: frameNanoseconds)
        tally.recordSettle()
        var summary = tally.summarize(book.records, of: self, duration: end - loop.start, usage: (usageAtEnd ?? ResourceUsage.now()) - loop.usageBefore)
        summary.partial = loop.partial
        summary.sessions = loop.session + 1
        let wire = transport.wire?.snapshot ?? WireTotals()
        (summary.wireBytesSent, summary.wireBytesReceived) = (wire.bytesSent, wire.bytesReceived)
        (summary.connectionsOpened, summary.connectionsReused) = (wire.connectionsOpened, wire.connectionsReused)
        if wire.tlsHandshake.count > 0 { Metric.tlsHandshake.fill(&summary, from: wire.tlsHandshake) }
        var distributions = tally.distributions
        (distributions.connect, distributions.tlsHandshake) = (wire.connect, wire.tlsHandshake)
        var result = RunResult(cell: cell, summary: summary, requests: book.records, distributions: distributions)
        result.timeline = tally.timeline
        result.origin = tally.origin
        result.timeline.finish(requests: book.records, origin: tally.origin, from: loop.start, to: end)
        return result
    }

    private func progressReport(frame: Int) -> RunProgress {
        RunProgress(frame: frame, traceFrames: workload.trace.frames.count, rowsVisited: Set(book.records.map(\.row)).count,
                    requests: book.records.count, displayed: book.displayedCount, inFlight: gauge.current)
    }

    /// Shows an image for a request: its display latency is whole frames from the one it appeared
    /// in; its ready latency runs from its cellForRow to `readyAt`, when the image reached the
    /// main loop (nil: it was there already, a memory hit).
    func display(_ id: Int, frame: Int, size: PixelSize, readyAt: UInt64? = nil) {
        let request = book[id]
        let ready = readyAt.map { $0 - min($0, request.requestedAt) } ?? 0
        tally.recordReady(nanoseconds: ready)
        let nanoseconds = UInt64(frame - request.visibleFrame) * frameNanoseconds
        book.shown(id, frame: frame, size: size, latency: nanoseconds, ready: ready)
        // Time to first image: its preview's frame where one came first.
        let firstFrame = min(frame, request.previewFrame ?? frame)
        tally.recordFirstImage(nanoseconds: UInt64(firstFrame - request.visibleFrame) * frameNanoseconds)
        tally.recordLatency(nanoseconds: nanoseconds, shownAt: loop.start + UInt64(frame) * frameNanoseconds)
    }
}
