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

    let runs: [ScrollRun]

    /// Runs every user to its end; results in the users' order. `progress` follows the first.
    func run(frameNanoseconds: UInt64, progress: ((RunProgress) -> Void)?) -> [RunResult] {
        let start = MonotonicClock.now() + frameNanoseconds
        for run in runs { run.begin(at: start) }
        var active = Array(runs.indices)
        var first = 0
        while !active.isEmpty {
            MonotonicClock.sleep(until: active.lazy.map { runs[$0].nextVsync }.min()!)
            let now = MonotonicClock.now()
            // Each frame starts with the next user: the users stepped last wake latest, and turning
            // the order shares that wait among all of them rather than making the last ones late.
            first = (first + 1) % active.count
            var finished = Set<Int>()
            for turn in 0..<active.count {
                let index = active[(first + turn) % active.count]
                let run = runs[index]
                guard run.nextVsync <= now, !run.step(progress: index == 0 ? progress : nil) else { continue }
                finished.insert(index)
            }
            if !finished.isEmpty { active.removeAll { finished.contains($0) } }
        }
        // Only now: `finish` waits for a user's cancelled loads, which would hold up the others'
        // frames. A user's clock stopped at its last frame (`step`), whenever this runs.
        return runs.map { $0.finish() }
    }
}

/// A crowd's distributions, recorded by its users on the crowd's one thread (so without a lock)
/// at three significant digits: the whole crowd's result, the same as merging every user's own at
/// three digits, while each user keeps only a two-digit copy for its row of clients.csv. A hundred
/// users then hold a hundred small histograms, not eleven hundred large ones.
public final class CrowdDistributions {
    var all = RunDistributions()
    /// Time to first byte per second (the users' timelines keep the counts).
    var timeline = Timeline()

    public init() {}
}

extension Benchmark {
    /// `--clients`: every simulated user of this process's slice runs the cell at once, each with
    /// its own trace (the seed plus its index), viewport, memory cache, scheduler and connections,
    /// all sharing the machine: `events` users stepped by one main-loop thread (`Crowd`), the
    /// others on one each; with the multi transport, one network thread for all. Progress
    /// follows the first.
    static func runClients(_ cell: RunCell, workload: Workload, settings: RunSettings, frames: Int? = nil, stop: StopRequest?,
                           observer: (any BenchmarkObserver)?) -> RunResult {
        let indices = Array(settings.clientIndices)
        let network = settings.transport == .multi ? CurlLoop() : nil
        defer { network?.stop() }
        let shared = Crowd.canShareThread(cell.strategy)
        let distributions = shared ? CrowdDistributions() : nil
        let crowd = Crowd(runs: indices.map { client in
            ScrollRun(workload: workload.forClient(client, settings: settings).prefix(frames: frames), settings: settings,
                      cell: cell, transport: settings.transport.make(limits: settings.fetchLimits, client: client, loop: network,
                                                                         keepsBodies: settings.decodes),
                      stop: stop, client: client, crowd: distributions)
        })
        let progress: @Sendable (RunProgress) -> Void = { observer?.runProgress(cell, $0) }
        let ordered = shared
            ? crowd.run(frameNanoseconds: UInt64(1_000_000_000 / settings.fps), progress: progress)
            : runOnOwnThreads(crowd.runs, progress: progress)
        var combined = RunResult.combining(ordered, distributions: distributions?.all)
        if let distributions { combined.timeline.add(distributions.timeline) }
        combined.clients = zip(indices, ordered).map { ($0, $1.summary) }
        return combined
    }

    /// Each user on a thread of its own, for users whose main loop blocks while it loads.
    private static func runOnOwnThreads(_ runs: [ScrollRun], progress: @escaping @Sendable (RunProgress) -> Void) -> [RunResult] {
        let results = Locked<[Int: RunResult]>([:])
        let group = DispatchGroup()
        for (index, run) in runs.enumerated() {
            group.enter()
            // Handed over whole: from here only that thread touches it.
            nonisolated(unsafe) let run = run
            Thread.detachNewThread {
                let result = run.run { if index == 0 { progress($0) } }
                results.withLockedValue { $0[index] = result }
                group.leave()
            }
        }
        group.wait()
        return results.withLockedValue { all in runs.indices.map { all[$0]! } }
    }
}
