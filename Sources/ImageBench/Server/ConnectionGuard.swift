import Foundation
import NIOCore
import Synchronization

/// What keeps the embedded server answering when peers misbehave: connections that idle or send
/// half a request are closed after `requestTimeout`, and at most `maxConnections` are open at
/// once (below the process's descriptor limit, so `accept` never fails with EMFILE). A new
/// connection beyond the cap closes the one that has waited longest for a request — a
/// half-open peer, never a response in flight — as nginx reuses its idle keep-alive connections.
public struct ConnectionLimits: Sendable, Equatable {
    /// Seconds a connection may wait for a complete request (idle keep-alive or headers still arriving).
    public var requestTimeout: Double
    /// Open connections at most; nil: the descriptor limit less a reserve.
    public var maxConnections: Int?

    public init(requestTimeout: Double = 10, maxConnections: Int? = nil) {
        self.requestTimeout = requestTimeout
        self.maxConnections = maxConnections
    }

    public static let standard = ConnectionLimits()

    /// Each number inside its range (`FlagRanges`), or an error naming the flag.
    public func validate() throws(PlanError) {
        try FlagRanges.check(requestTimeout, in: FlagRanges.requestTimeout, "--request-timeout")
        if let maxConnections { try FlagRanges.check(maxConnections, in: FlagRanges.maxConnections, "--max-connections") }
    }

    /// Descriptors kept back from the cap for the listening socket, files and the process's own.
    static let descriptorReserve = 64

    /// The cap in force: the given one, never above the descriptor limit less the reserve. Raises
    /// the soft descriptor limit to the hard one first, as servers do.
    func effectiveCap() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return maxConnections ?? 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = max(1, Int(min(limit.rlim_cur, 1 << 20)) - Self.descriptorReserve)
        return min(maxConnections ?? available, available)
    }
}

/// The server's open connections and when each began waiting for a request. Shared by every
/// event loop; a sweep on one of them closes those that waited too long.
final class ConnectionGuard: Sendable {
    let cap: Int
    private let timeoutNanoseconds: UInt64
    private struct Entry {
        let channel: any Channel
        /// When it began waiting for a request; nil while a request is being answered.
        var waitingSince: UInt64?
    }
    private let open = Locked<[ObjectIdentifier: Entry]>([:])
    /// Connections closed for waiting too long, and to make room under the cap.
    let timedOut = Atomic<Int>(0)
    let evicted = Atomic<Int>(0)

    init(limits: ConnectionLimits) {
        cap = limits.effectiveCap()
        timeoutNanoseconds = UInt64(limits.requestTimeout * 1e9)
    }

    var count: Int { open.withLockedValue { $0.count } }

    /// A new connection; over the cap, the one waiting longest for a request is closed.
    func opened(_ channel: any Channel) {
        let victim: (any Channel)? = open.withLockedValue { open in
            open[ObjectIdentifier(channel)] = Entry(channel: channel, waitingSince: MonotonicClock.now())
            guard open.count > cap else { return nil }
            let oldest = open.filter { $0.key != ObjectIdentifier(channel) && $0.value.waitingSince != nil }
                .min { $0.value.waitingSince! < $1.value.waitingSince! }
            // None idle: every other connection is being answered, so the newcomer waits its turn elsewhere.
            let key = oldest?.key ?? ObjectIdentifier(channel)
            return open.removeValue(forKey: key)?.channel
        }
        if let victim {
            evicted.add(1, ordering: .relaxed)
            victim.close(promise: nil)
        }
    }

    func closed(_ channel: any Channel) {
        _ = open.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// A complete request arrived: it is being answered, and no timeout applies.
    func answering(_ channel: any Channel) {
        open.withLockedValue { $0[ObjectIdentifier(channel)]?.waitingSince = nil }
    }

    /// Its response is written: it waits for the next request.
    func waiting(_ channel: any Channel) {
        open.withLockedValue { $0[ObjectIdentifier(channel)]?.waitingSince = MonotonicClock.now() }
    }

    /// Closes the connections that have waited longer than the request timeout.
    func sweep(now: UInt64 = MonotonicClock.now()) {
        let expired: [any Channel] = open.withLockedValue { open in
            let keys = open.filter { $0.value.waitingSince.map { now &- $0 > timeoutNanoseconds } ?? false }.map(\.key)
            return keys.compactMap { open.removeValue(forKey: $0)?.channel }
        }
        timedOut.add(expired.count, ordering: .relaxed)
        for channel in expired { channel.close(promise: nil) }
    }
}

/// First in every connection's pipeline: registers it with the guard and leaves when it closes.
final class ConnectionTracking: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    let connections: ConnectionGuard

    init(_ connections: ConnectionGuard) { self.connections = connections }

    func channelActive(context: ChannelHandlerContext) {
        connections.opened(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.closed(context.channel)
        context.fireChannelInactive()
    }
}
