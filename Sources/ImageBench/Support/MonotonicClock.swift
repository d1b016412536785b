import Foundation

/// Where a run reads time and waits: the monotonic clock, or one a test (or a virtual-time run)
/// steps itself. The run loop, the pipeline's stage timings, the strategies' waits and the
/// embedded server's shaping all take one; nothing else changes with it.
public protocol RunClock: Sendable {
    /// Nanoseconds since an arbitrary origin, never going back.
    func now() -> UInt64
    /// Returns once `now()` has reached `deadline`.
    func sleep(until deadline: UInt64)
    /// Lets what is due by now happen, without waiting: a virtual clock runs its overdue events
    /// (a cancelled modelled transfer's end), others have nothing to do.
    func settle()
}

extension RunClock {
    public func settle() {}

    /// Waits from a task (a retry's backoff in the async strategy) without holding its thread.
    func sleepAsync(until deadline: UInt64) async {
        let now = now()
        guard deadline > now else { return }
        try? await Task.sleep(nanoseconds: deadline - now)
    }
}

/// The default clock: nanoseconds on CLOCK_MONOTONIC, cheap to read (vDSO), never jumps, shared
/// by every thread, so timestamps taken on workers and on the main loop can be subtracted. It is
/// the only reader of the system's clock.
public struct MonotonicClock: RunClock {
    public init() {}

    @inline(__always)
    public func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Sleeps until an absolute deadline (no drift from repeated relative sleeps).
    public func sleep(until deadline: UInt64) {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }
}

extension RunClock where Self == MonotonicClock {
    /// The clock every run uses unless told otherwise.
    public static var monotonic: MonotonicClock { MonotonicClock() }
}

extension UInt64 {
    /// Nanoseconds as milliseconds.
    var milliseconds: Double { Double(self) / 1_000_000 }
}
