import Dispatch

/// Grand Central Dispatch with a width limit, as it is usually written: a concurrent queue does the
/// work, a counting semaphore caps how many items run at once, and a serial gate queue waits on
/// the semaphore so that no thread is parked per queued item. Each load is a `DispatchWorkItem`
/// that a row leaving the screen can `cancel()` before it starts.
///
/// On Linux, Dispatch adds worker threads slowly (about one per second) when its items block, so
/// with the blocking transport the achieved concurrency lags the width: the report shows it.
final class GCDStrategy: LoadScheduling {
    private let gate = DispatchQueue(label: "imgbench.gcd.gate")
    private let workers = DispatchQueue(label: "imgbench.gcd.work", qos: .userInitiated, attributes: .concurrent)
    private let slots: DispatchSemaphore
    private let pending = Locked<[Int: WorkItem]>([:])
    private let outstanding = OutstandingWork()

    init(width: Int) {
        slots = DispatchSemaphore(value: width)
    }

    func submit(_ job: LoadJob) {
        outstanding.add()
        let item = WorkItem(DispatchWorkItem { job.run() })
        pending.withLockedValue { $0[job.id] = item }
        gate.async { [slots, workers, pending, outstanding] in
            slots.wait()
            @Sendable func finish() {
                pending.withLockedValue { _ = $0.removeValue(forKey: job.id) }
                slots.signal()
                outstanding.done()
            }
            guard !item.isCancelled else { return finish() }
            workers.async {
                if !item.isCancelled { item.perform() }
                finish()
            }
        }
    }

    func cancel(_ job: LoadJob) {
        pending.withLockedValue { $0[job.id] }?.cancel()
    }

    /// A `DispatchWorkItem` shared between the gate, a worker and the main loop. Its `cancel`,
    /// `isCancelled` and `perform` are thread-safe by Dispatch's contract; the Linux overlay just
    /// does not mark the class Sendable, hence `@unchecked`.
    private final class WorkItem: @unchecked Sendable {
        private let item: DispatchWorkItem
        init(_ item: DispatchWorkItem) { self.item = item }
        var isCancelled: Bool { item.isCancelled }
        func cancel() { item.cancel() }
        func perform() { item.perform() }
    }

    func waitUntilIdle() {
        outstanding.waitUntilNone()
    }
}
