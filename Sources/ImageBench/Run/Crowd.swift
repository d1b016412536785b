import Foundation

/// `--clients`: the simulated users of one process, stepped by one main-loop thread. Each user
/// keeps its own frame clock, trace, caches, scheduler and connections; only the thread that wakes
/// at their vsyncs is shared, so a hundred users cost one timer wake-up per frame rather than a
/// hundred threads each waking sixty times a second. Only users of the `events` strategy share
/// it (`canShareThread`); the others keep a thread each (`Benchmark.runClients`).
struct Crowd {
    /// Whether users of `strategy` share one thread: only `events`, which has no threads of its
    /// own. Users whose loads run on worker threads keep a main-loop thread each: one loop thread
    /// among hundreds of busy workers wakes late (100 users of threads ×5: 44% of their frames late
    /// on one shared thread, under 0.1% on threads of their own), and `main-thread` blocks while
    /// it loads.
    static func canShareThread(_ strategy: StrategyKind) -> Bool { strategy == .events }

    /// Every user of the cell, made when its time comes (`starts`, monotonic ns).
    let starts: [UInt64]
    let makeRun: (Int) -> ScrollRun
    /// Where users' vsyncs and arrivals are waited for: their runs' clock.
    var clock: any RunClock = .monotonic
    /// How many frames the cell is expected to last, for progress (a load model's duration);
    /// nil: the first user's trace.
    var expectedFrames: Int?
    /// Users that end while others go on (a load model's) are summed up as they end: that waits
    /// for their cancelled loads, but frees their caches and connections, so an open model's
    /// thousands of users are not all held to the end. Users that end together are summed up
    /// after the last frame.
    var finishesEarly = false

    /// Runs every user to its end; results in the users' order, and the process's CPU when the
    /// last frame was done. `progress` reports the whole crowd four times a second. `origin`: the
    /// cell's first vsync, where its time series counts from.
    func run(origin: UInt64, frameNanoseconds: UInt64, progress: ((RunProgress) -> Void)?) -> (results: [RunResult], usageAtEnd: ResourceUsage) {
        var runs: [ScrollRun?] = Array(repeating: nil, count: starts.count)
        var usageAtEnd: [ResourceUsage?] = Array(repeating: nil, count: starts.count)
        var results: [RunResult?] = Array(repeating: nil, count: starts.count)
        var requestsOfFinished = 0
        // Users in the order they arrive; `next` is the first not yet made.
        let arrivals = starts.indices.sorted { starts[$0] < starts[$1] }
        var next = 0
        var active: [Int] = []
        var first = 0
        var lastProgress = origin
        while next < arrivals.count || !active.isEmpty {
            var wake = active.lazy.map { runs[$0]!.nextVsync }.min() ?? .max
            if next < arrivals.count { wake = min(wake, starts[arrivals[next]]) }
            clock.sleep(until: wake)
            let now = clock.now()
            while next < arrivals.count && starts[arrivals[next]] <= now {
                let index = arrivals[next]
                let run = makeRun(index)
                run.begin(at: starts[index], origin: origin)
                runs[index] = run
                active.append(index)
                next += 1
            }
            // Each frame starts with the next user: the users stepped last wake latest, and turning
            // the order shares that wait among all of them rather than making the last ones late.
            first = active.isEmpty ? 0 : (first + 1) % active.count
            var finished = Set<Int>()
            for turn in 0..<active.count {
                let index = active[(first + turn) % active.count]
                let run = runs[index]!
                guard run.nextVsync <= now, !run.step() else { continue }
                finished.insert(index)
                usageAtEnd[index] = ResourceUsage.now()
                if finishesEarly {
                    let result = run.finish(usageAtEnd: usageAtEnd[index])
                    requestsOfFinished += result.requests.count
                    (results[index], runs[index]) = (result, nil)
                }
            }
            if !finished.isEmpty { active.removeAll { finished.contains($0) } }
            if let progress, now - lastProgress > 250_000_000 {
                lastProgress = now
                progress(report(runs, finished: requestsOfFinished, active: active, frame: Int((now - min(now, origin)) / frameNanoseconds)))
            }
        }
        // Only now: `finish` waits for a user's cancelled loads, which would hold up the others'
        // frames. A user's clock stopped at its last frame (`step`), whenever this runs.
        let lastFrame = ResourceUsage.now()
        progress?(report(runs, finished: requestsOfFinished, active: [], frame: expectedFrames ?? .max))
        return (runs.indices.map { results[$0] ?? runs[$0]!.finish(usageAtEnd: usageAtEnd[$0]) }, lastFrame)
    }
}

extension Crowd {
    /// The crowd as one progress line: its time against the expected, the users scrolling, and
    /// the requests made and loads in flight of every user so far.
    private func report(_ runs: [ScrollRun?], finished: Int, active: [Int], frame: Int) -> RunProgress {
        let made = runs.lazy.compactMap { $0 }
        // Without a load model the crowd lasts as long as its longest trace, not its first user's.
        let expected = expectedFrames ?? made.map(\.workload.trace.frames.count).max() ?? 1
        var progress = RunProgress(frame: min(frame, expected), traceFrames: expected, rowsVisited: 0,
                                   requests: finished + made.reduce(0) { $0 + $1.book.records.count }, displayed: 0,
                                   inFlight: made.reduce(0) { $0 + $1.gauge.current })
        progress.users = active.count
        return progress
    }
}

/// A crowd's distributions, recorded by its users on the crowd's one thread (so without a lock)
/// at three significant digits: the whole crowd's result, the same as merging every user's own at
/// three digits, while each user keeps only a two-digit copy for its row of clients.csv. A hundred
/// users then hold a hundred small histograms, not eleven hundred large ones.


extension Benchmark {
    /// `--clients`: every simulated user of this process's slice runs the cell at once, each with
    /// its own trace (the seed plus its index), viewport, memory cache, scheduler and connections,
    /// all sharing the machine: `events` users stepped by one main-loop thread (`Crowd`), the
    /// others on one each; with the multi transport, one network thread for all. Progress
    /// counts every user's requests, over the cell's time (`CrowdProgress`).
    static func runClients(_ cell: RunCell, workload: Workload, settings: RunSettings, frames: Int? = nil, stop: StopRequest?,
                           observer: (any BenchmarkObserver)?, live: (any LiveObserver)? = nil,
                           clock: any RunClock = .monotonic) -> RunResult {
        let indices = Array(settings.clientIndices)
        let network = settings.transport == .multi ? CurlLoop() : nil
        defer { network?.stop() }
        let shared = Crowd.canShareThread(cell.strategy)
        let distributions = shared ? DistributionRecorder() : nil
        let frameNanoseconds = UInt64(1_000_000_000 / settings.fps)
        let origin = clock.now() + frameNanoseconds
        let windows = settings.load?.windows(clients: settings.clients)
        let offsets = indices.map { client in windows.map { UInt64($0[client].start * 1e9) } ?? 0 }
        let makeRun = { (slot: Int) -> ScrollRun in
            let client = indices[slot]
            let run = ScrollRun(workload: workload.forClient(client, settings: settings).prefix(frames: frames), settings: settings,
                                cell: cell, transport: settings.transport.make(limits: settings.fetchLimits, client: client, loop: network,
                                                                               keepsBodies: settings.decodes),
                                stop: stop, client: client, crowd: distributions, live: live, clock: clock)
            if let window = windows?[client] {
                run.window = (window.end.isFinite ? origin + UInt64(window.end * 1e9) : nil, window.loops)
            }
            return run
        }
        var crowd = Crowd(starts: offsets.map { origin + $0 }, makeRun: makeRun, clock: clock)
        crowd.expectedFrames = settings.load.map { Int($0.seconds * Double(settings.fps)) }
        crowd.finishesEarly = settings.load != nil
        ResourceUsage.resetPeakResidentMemory()
        let usageBefore = ResourceUsage.now()
        let progress: @Sendable (RunProgress) -> Void = { observer?.runProgress(cell, $0) }
        let (ordered, usageAtEnd) = shared
            ? crowd.run(origin: origin, frameNanoseconds: frameNanoseconds, progress: progress)
            : (runOnOwnThreads(crowd, origin: origin, progress: CrowdProgress(
                users: crowd.starts.count, origin: origin, frameNanoseconds: frameNanoseconds,
                expectedFrames: crowd.expectedFrames, clock: clock, report: progress)), ResourceUsage.now())
        var combined = RunResult.combining(ordered, distributions: distributions?.all)
        if let distributions { combined.timeline.add(distributions.timeline) }
        combined.clients = zip(indices, ordered).map { ($0, $1.summary) }
        combined.origin = origin
        if settings.load != nil {
            // Users came and went: the cell lasted from its start to the last user's end, and the
            // process's CPU over all of it is the cell's.
            combined.summary.durationS = zip(offsets, ordered).map { Double($0) / 1e9 + $1.summary.durationS }.max() ?? 0
            let usage = usageAtEnd - usageBefore
            (combined.summary.cpuUserS, combined.summary.cpuSysS) = (usage.userSeconds, usage.systemSeconds)
        }
        return combined
    }

    /// Each user on a thread of its own, for users whose main loop blocks while it loads; a
    /// thread starts when its user's time comes; each reports to `progress` from its thread. As in `Crowd.run`, a user's CPU stops at its last
    /// frame, and users that end together are summed up only after every user's last frame: each
    /// one's summing up (its distributions, about 3% of a `threads` cell of 100 users) used to
    /// count in the CPU of the users still scrolling, and so in the cell's, which a load tester
    /// divides by its requests. A load model's users are summed up as they end (`finishesEarly`).
    private static func runOnOwnThreads(_ crowd: Crowd, origin: UInt64, progress: CrowdProgress) -> [RunResult] {
        let results = Locked<[Int: RunResult]>([:])
        let group = DispatchGroup(), framesDone = DispatchGroup(), summingUp = DispatchGroup()
        let holds = !crowd.finishesEarly
        summingUp.enter()
        for index in crowd.starts.indices.sorted(by: { crowd.starts[$0] < crowd.starts[$1] }) {
            crowd.clock.sleep(until: crowd.starts[index])
            group.enter()
            framesDone.enter()
            // Handed over whole: from here only that thread touches it.
            nonisolated(unsafe) let run = crowd.makeRun(index)
            let start = crowd.starts[index]
            progress.began(index, traceFrames: run.workload.trace.frames.count)
            Thread.detachNewThread {
                run.begin(at: start, origin: origin)
                run.runFrames { progress.update(index, $0) }
                let usageAtEnd = ResourceUsage.now()
                framesDone.leave()
                if holds { summingUp.wait() }
                let result = run.finish(usageAtEnd: usageAtEnd)
                progress.ended(index, requests: result.requests.count)
                results.withLockedValue { $0[index] = result }
                group.leave()
            }
        }
        framesDone.wait()
        summingUp.leave()
        group.wait()
        progress.finish()
        return results.withLockedValue { all in crowd.starts.indices.map { all[$0]! } }
    }
}
