/// A link of fixed bandwidth that every connection's bytes queue on, first come first served:
/// the bottleneck of a phone's radio. Connections interleave because each reserves one chunk at
/// a time, so concurrent downloads share the bandwidth instead of each getting all of it.
final class SharedLink: Sendable {
    let bytesPerSecond: Double
    private let nextFree = Locked<UInt64>(0)
    let clock: any RunClock

    init(bytesPerSecond: Double, clock: any RunClock = .monotonic) {
        precondition(bytesPerSecond > 0, "a link needs bandwidth")
        self.bytesPerSecond = bytesPerSecond
        self.clock = clock
    }

    /// Reserves the link for `bytes` and returns when (on `clock`) their transmission ends.
    func reserve(_ bytes: Int, now: UInt64) -> UInt64 {
        let duration = UInt64(Double(bytes) / bytesPerSecond * 1e9)
        return nextFree.withLockedValue { next in
            next = max(next, now) + duration
            return next
        }
    }

    /// How many bytes to send per reservation: about 5 ms of the link, between 4 kB and 64 kB,
    /// fine enough to interleave connections, coarse enough to keep timer wake-ups cheap.
    var chunkSize: Int { min(64 * 1024, max(4 * 1024, Int(bytesPerSecond * 0.005))) }
}
