/// Callbacks and no threads of its own: what an app built on URLSession's delegate callbacks does.
/// A job starts its fetch on the multi transport's network thread and returns; the transfer's
/// completion continues the load (decode and filter on a Dispatch queue, or nothing under
/// `--no-decode`) and then starts the next queued job. At most `limit` loads are under way, visible
/// rows' before prefetches. Nothing blocks, so a crowd of users needs no thread per user: the load
/// generator's strategy (`--clients`, `--no-decode`). Needs `--transport multi`.
final class EventStrategy: LoadScheduling {
    private struct State {
        var running = 0
        var visible: [LoadJob] = []
        var prefetch: [LoadJob] = []

        mutating func next() -> LoadJob? {
            if !visible.isEmpty { return visible.removeFirst() }
            if !prefetch.isEmpty { return prefetch.removeFirst() }
            return nil
        }
    }

    private let limit: Int
    private let state = Locked(State())
    private let outstanding = OutstandingWork()

    init(limit: Int) {
        self.limit = limit
    }

    func submit(_ job: LoadJob) {
        outstanding.add()
        let startNow = state.withLockedValue { state in
            guard state.running >= limit else {
                state.running += 1
                return true
            }
            if job.priority == .visible { state.visible.append(job) } else { state.prefetch.append(job) }
            return false
        }
        if startNow { launch(job) }
    }

    /// A queued job that was cancelled leaves the queue at once; a started one ends at its
    /// transfer's abort.
    func cancel(_ job: LoadJob) {
        let removed = state.withLockedValue { state -> LoadJob? in
            if let index = state.visible.firstIndex(where: { $0 === job }) { return state.visible.remove(at: index) }
            if let index = state.prefetch.firstIndex(where: { $0 === job }) { return state.prefetch.remove(at: index) }
            return nil
        }
        if removed != nil { outstanding.done() }
    }

    func waitUntilIdle() {
        outstanding.waitUntilNone()
    }

    /// Starts `first`, and the queued jobs after it as each finishes. A job that finishes inside
    /// its own `start` (cancelled before it began, or refused by a transport shutting down) hands
    /// its successor back to this loop instead of starting it from its completion: a queue of such
    /// jobs would otherwise nest one call deeper each.
    private func launch(_ first: LoadJob) {
        var job: LoadJob? = first
        while let current = job {
            let call = Locked((starting: true, successor: nil as LoadJob?))
            current.start { [self] in
                let next = state.withLockedValue { state in
                    let next = state.next()
                    if next == nil { state.running -= 1 }
                    return next
                }
                outstanding.done()
                guard let next else { return }
                let deferred = call.withLockedValue { call in
                    guard call.starting else { return false }
                    call.successor = next
                    return true
                }
                if !deferred { launch(next) }
            }
            job = call.withLockedValue { call in
                call.starting = false
                return call.successor
            }
        }
    }
}
