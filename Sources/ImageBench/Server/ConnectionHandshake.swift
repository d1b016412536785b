import Synchronization

/// What opening a connection costs on the profile's link, charged by the server: a phone's new
/// connection spends one round trip on TCP's handshake and, over TLS 1.3, one more on TLS's
/// before its first request can even leave. On loopback both take microseconds, so the server
/// holds the connection's first answers until that time has passed since it accepted the
/// connection: a cancel that costs HTTP/1.1 its connection then costs the next load those round
/// trips, as on a phone, and an HTTP/2 user pays them once. A round trip is the profile's latency
/// without its jitter (the time a small answer takes, which is what a handshake's messages are).
/// Answers that arrive before the first one went out (HTTP/2's first streams) all wait for it;
/// once an answer has gone out, the connection is open and nothing waits again.
final class ConnectionHandshake: Sendable {
    /// Round trips before the first request: 1 for TCP, 2 with TLS 1.3.
    let roundTrips: Int
    /// When the connection could carry its first request (the shaping clock's nanoseconds).
    let readyAt: UInt64
    private let open = Atomic<Bool>(false)

    /// A connection accepted now.
    init(profile: NetworkProfile, tls: Bool, clock: any RunClock) {
        roundTrips = tls ? 2 : 1
        readyAt = clock.now() &+ Self.nanoseconds(profile: profile, roundTrips: roundTrips)
    }

    /// Milliseconds an answer due `now` still waits for the handshake (0 once it is over, or
    /// once an answer has gone out on the connection).
    func remainingMilliseconds(now: UInt64) -> Double {
        open.load(ordering: .relaxed) ? 0 : Double(readyAt - min(readyAt, now)) / 1e6
    }

    /// An answer went out: the connection is open.
    func answered() { open.store(true, ordering: .relaxed) }

    /// The handshake's cost on `profile`: what README's profile table gives.
    static func milliseconds(profile: NetworkProfile, tls: Bool) -> Double {
        max(0, profile.latencyMilliseconds) * (tls ? 2 : 1)
    }

    private static func nanoseconds(profile: NetworkProfile, roundTrips: Int) -> UInt64 {
        // A profile's latency is checked on parsing (at most minutes): no overflow here.
        UInt64(max(0, profile.latencyMilliseconds) * Double(roundTrips) * 1e6)
    }
}
