import Foundation

/// Where a load goes on after something it waited for: its transport's answer, or a retry's
/// backoff. The pipeline has one path for every load (`ImagePipeline.start`); the context is what
/// differs between a worker that blocks for its load (`WorkerContext`), a task that suspends
/// (`TaskContext`) and a load no one waits for (`CallbackContext`).
protocol LoadContext: Sendable {
    /// Runs `work` where the load goes on. `heavy`: CPU or disk work (a decode, a disk read, a
    /// blocking fetch), which must not run on a network thread nor on the main loop.
    func resume(heavy: Bool, _ work: @escaping @Sendable () -> Void)
    /// Waits until `deadline` on `clock`, then runs `then` where the load goes on: with true, or
    /// with false as soon as `token` is cancelled (a cancelled load does not wait out a backoff
    /// for nothing).
    func pause(until deadline: UInt64, on clock: any RunClock, unless token: LoadToken, then: @escaping @Sendable (Bool) -> Void)
}

/// A load no thread waits for (the events strategy): light work runs where it is resumed (the
/// network thread, for a transfer's end without a decode), heavy work on a Dispatch queue, and a
/// backoff is a timer.
struct CallbackContext: LoadContext {
    /// A visible row's decode is user-initiated work, as the gcd strategy's workers are: at the
    /// default QoS Dispatch would serve it after every user-initiated item waiting in the process
    /// (a test process running other strategies beside it starved it for seconds).
    private static let heavyWork = DispatchQueue.global(qos: .userInitiated)

    func resume(heavy: Bool, _ work: @escaping @Sendable () -> Void) {
        if heavy { Self.heavyWork.async(execute: work) } else { work() }
    }

    func pause(until deadline: UInt64, on clock: any RunClock, unless token: LoadToken,
               then: @escaping @Sendable (Bool) -> Void) {
        let answered = Locked(false)
        let once: @Sendable (Bool) -> Void = { carryOn in
            let first = answered.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { then(carryOn) }
        }
        token.onCancel { once(false) }
        let wait = deadline - min(deadline, clock.now())
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(min(wait, UInt64(Int.max))))) {
            once(!token.isCancelled)
        }
    }
}

/// The next slice of a backoff that ends at `end` on `clock`: at most 10 ms, so a cancel ends
/// the wait within one; 0 when the backoff is over, nil when `token` was cancelled first.
func backoffSlice(until end: UInt64, on clock: any RunClock, unless token: LoadToken) -> UInt64? {
    guard !token.isCancelled else { return nil }
    let now = clock.now()
    return now < end ? min(end - now, 10_000_000) : 0
}
