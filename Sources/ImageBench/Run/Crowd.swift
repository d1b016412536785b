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
        var results = [RunResult?](repeating: nil, count: runs.count)
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
                results[index] = run.finish()
                finished.insert(index)
            }
            if !finished.isEmpty { active.removeAll { finished.contains($0) } }
        }
        return results.map { $0! }
    }
}

/// A crowd's distributions, recorded by its users on the crowd's one thread (so without a lock)
/// at three significant digits: the whole crowd's result, the same as merging every user's own at
/// three digits, while each user keeps only a two-digit copy for its row of clients.csv. A hundred
/// users then hold a hundred small histograms, not eleven hundred large ones.
public final class CrowdDistributions {
    var all = RunDistributions()

    public init() {}
}
