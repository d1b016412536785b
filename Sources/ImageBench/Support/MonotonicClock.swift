import Foundation

/// Nanoseconds on CLOCK_MONOTONIC: cheap to read (vDSO), never jumps, shared by every thread, so
/// timestamps taken on workers and on the main loop can be subtracted.
public enum MonotonicClock {
    @inline(__always)
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Sleeps until an absolute monotonic deadline (no drift from repeated relative sleeps).
    static func sleep(until deadline: UInt64) {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }
}

extension UInt64 {
    /// Nanoseconds as milliseconds.
    var milliseconds: Double { Double(self) / 1_000_000 }
}
