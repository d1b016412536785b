/// A load run inside a task that suspends until it is over (the async strategy): whatever the
/// load waits for, it goes on in this task. A blocking transport answers inline, holding the
/// task's thread (which is what such code does to the cooperative pool); a multi transport's
/// answer is posted here and the task, suspended meanwhile, runs it.
///
/// The posted work travels through a lock, not only through the continuation: the continuation
/// alone is a correct hand-off, but ThreadSanitizer cannot see inside the uninstrumented
/// concurrency runtime and would report what the work carries (a body's bytes) as a race.
final class TaskContext: LoadContext {
    private enum Item {
        case run(@Sendable () -> Void)
        case pause(end: UInt64, clock: any RunClock, token: LoadToken, then: @Sendable (Bool) -> Void)
    }

    private struct Mailbox {
        var items: [Item] = []
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let mailbox = Locked(Mailbox())

    /// Runs `start` in the calling task, then the work the load posts back, until it calls its
    /// `done`.
    static func run(_ start: (_ context: TaskContext, _ done: @escaping @Sendable () -> Void) -> Void) async {
        let context = TaskContext()
        start(context) { context.update { $0.finished = true } }
        await context.drain()
    }

    func resume(heavy: Bool, _ work: @escaping @Sendable () -> Void) {
        update { $0.items.append(.run(work)) }
    }

    func pause(until deadline: UInt64, on clock: any RunClock, unless token: LoadToken,
               then: @escaping @Sendable (Bool) -> Void) {
        update { $0.items.append(.pause(end: deadline, clock: clock, token: token, then: then)) }
    }

    /// Changes the mailbox and wakes the task if it waits.
    private func update(_ change: @Sendable (inout Mailbox) -> Void) {
        let waiter = mailbox.withLockedValue { box in
            change(&box)
            defer { box.waiter = nil }
            return box.waiter
        }
        waiter?.resume()
    }

    private func drain() async {
        while true {
            let next = mailbox.withLockedValue { box -> (item: Item?, over: Bool) in
                box.items.isEmpty ? (nil, box.finished) : (box.items.removeFirst(), false)
            }
            if next.over { return }
            guard let item = next.item else {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = mailbox.withLockedValue { box in
                        guard box.items.isEmpty && !box.finished else { return true }
                        box.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
                continue
            }
            switch item {
            case .run(let work): work()
            case .pause(let end, let clock, let token, let then):
                var slice = backoffSlice(until: end, on: clock, unless: token)
                while let wait = slice, wait > 0 {
                    await clock.sleepAsync(until: clock.now() + wait)
                    slice = backoffSlice(until: end, on: clock, unless: token)
                }
                then(slice != nil)
            }
        }
    }
}
