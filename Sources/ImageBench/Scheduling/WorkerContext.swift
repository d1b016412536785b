import Foundation

/// A load run by a worker that blocks until it is over (operation queue, GCD, threads, the main
/// thread, a stage queue): whatever the load waits for, it goes on on this worker's thread, as
/// the classic `Operation.main()` does. A blocking transport answers inline; a multi transport's
/// answer is posted here from its network thread, and the worker, waiting, runs it.
///
/// `@unchecked Sendable`: `items` and `finished` are only touched while holding `condition`.
final class WorkerContext: LoadContext, @unchecked Sendable {
    private enum Item {
        case run(@Sendable () -> Void)
        case pause(end: UInt64, clock: any RunClock, token: LoadToken, then: @Sendable (Bool) -> Void)
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private var finished = false

    /// Runs `start` on the calling thread, then the work the load posts back, until it calls its
    /// `done`.
    static func run(_ start: (_ context: WorkerContext, _ done: @escaping @Sendable () -> Void) -> Void) {
        let context = WorkerContext()
        start(context) { context.finish() }
        context.drain()
    }

    func resume(heavy: Bool, _ work: @escaping @Sendable () -> Void) { post(.run(work)) }

    func pause(until deadline: UInt64, on clock: any RunClock, unless token: LoadToken,
               then: @escaping @Sendable (Bool) -> Void) {
        post(.pause(end: deadline, clock: clock, token: token, then: then))
    }

    private func post(_ item: Item) {
        condition.lock()
        items.append(item)
        condition.signal()
        condition.unlock()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func drain() {
        while true {
            condition.lock()
            while items.isEmpty && !finished { condition.wait() }
            guard !items.isEmpty else {
                condition.unlock()
                return
            }
            let item = items.removeFirst()
            condition.unlock()
            switch item {
            case .run(let work): work()
            case .pause(let end, let clock, let token, let then):
                var slice = backoffSlice(until: end, on: clock, unless: token)
                while let wait = slice, wait > 0 {
                    clock.sleep(until: clock.now() + wait)
                    slice = backoffSlice(until: end, on: clock, unless: token)
                }
                then(slice != nil)
            }
        }
    }
}
