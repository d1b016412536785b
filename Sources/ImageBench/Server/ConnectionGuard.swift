import CShims
import Foundation
import NIOCore
import Synchronization

/// What keeps the embedded server answering when peers misbehave: connections that idle or send
/// half a request are closed after `requestTimeout`, and at most `maxConnections` are open at
/// once (below the process's descriptor limit, so `accept` never fails with EMFILE). A new
/// connection beyond the cap closes the one that has waited longest for a request — a
/// half-open peer, never a response in flight — as nginx reuses its idle keep-alive connections.
/// A peer that stops reading gets no more answers once its unsent output passes the write
/// buffer's high water mark, is not read from until it drains, and is closed after `sendTimeout`
/// without progress (nginx's `send_timeout`).
public struct ConnectionLimits: Sendable, Equatable {
    /// Seconds a connection may wait for a complete request (idle keep-alive or headers still arriving).
    public var requestTimeout: Double
    /// Open connections at most; nil: the descriptor limit less a reserve.
    public var maxConnections: Int?
    /// Seconds a connection's output may stay above the high water mark with no byte taken by the
    /// peer before it is closed. nginx's `send_timeout` is 60 s; half that here, because this
    /// server's clients are load tools that read as fast as they can: one that has taken nothing
    /// for 30 s is gone or hostile. Internal (tests shorten it); no flag, as nobody asked for one.
    var sendTimeout: Double = 30
    /// Hand freed memory back to the system when the last connection closes (`imgbench serve`).
    /// Off for the server inside a run: glibc's trim locks each arena in turn and would stall the
    /// run's own decode and filter threads in the middle of a measurement.
    public var returnsMemoryWhenIdle = false

    /// Unsent output a connection may hold (NIO's own defaults, set here so the bound is ours):
    /// above `high`, the server stops answering and reading that connection; below `low`, it
    /// resumes. Answers share their file's bytes, so a connection holds at most about `high`, one
    /// answer and the requests of the reads before it stopped (about 1 MB for a pipelining peer).
    static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 32 * 1_024, high: 64 * 1_024)

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
    private let sendTimeoutNanoseconds: UInt64
    private struct Entry {
        let channel: any Channel
        /// When it began waiting for a request; nil while a request is being answered.
        var waitingSince: UInt64?
        /// HTTP/2 streams being answered: the connection waits again only when the last ends.
        var streams = 0
        /// While its output is over the high water mark: since when the peer took nothing, and
        /// how many bytes were unsent then (fewer later is progress).
        var stalled: (since: UInt64, unsent: Int)?
    }
    private let open = Locked<[ObjectIdentifier: Entry]>([:])
    /// Connections closed for waiting too long, and to make room under the cap.
    let timedOut = Atomic<Int>(0)
    let evicted = Atomic<Int>(0)
    /// Connections closed because their peer took none of their output for the send timeout.
    let sendTimedOut = Atomic<Int>(0)

    /// Where waits and stalls are timed.
    private let clock: any RunClock

    init(limits: ConnectionLimits, clock: any RunClock = .monotonic) {
        self.clock = clock
        cap = limits.effectiveCap()
        timeoutNanoseconds = UInt64(limits.requestTimeout * 1e9)
        sendTimeoutNanoseconds = UInt64(limits.sendTimeout * 1e9)
        returnsMemory = limits.returnsMemoryWhenIdle
    }
    private let returnsMemory: Bool

    var count: Int { open.withLockedValue { $0.count } }

    /// A new connection; over the cap, the one waiting longest for a request is closed.
    func opened(_ channel: any Channel) {
        let victim: (any Channel)? = open.withLockedValue { open in
            open[ObjectIdentifier(channel)] = Entry(channel: channel, waitingSince: clock.now())
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
        let last = open.withLockedValue { open in
            open.removeValue(forKey: ObjectIdentifier(channel))
            return open.isEmpty
        }
        if last && returnsMemory { ReleasedMemory.returnToSystem() }
    }

    /// Its output went over the high water mark with `unsent` bytes waiting.
    func stalled(_ channel: any Channel, unsent: Int) {
        let now = clock.now()
        open.withLockedValue { $0[ObjectIdentifier(channel)]?.stalled = (now, unsent) }
    }

    /// Its output drained below the low water mark.
    func drained(_ channel: any Channel) {
        open.withLockedValue { $0[ObjectIdentifier(channel)]?.stalled = nil }
    }

    /// A complete request arrived: it is being answered, and no timeout applies.
    func answering(_ channel: any Channel) {
        open.withLockedValue { $0[ObjectIdentifier(channel)]?.waitingSince = nil }
    }

    /// Its response is written: it waits for the next request.
    func waiting(_ channel: any Channel) {
        open.withLockedValue { $0[ObjectIdentifier(channel)]?.waitingSince = clock.now() }
    }

    /// A complete request arrived on one of an HTTP/2 connection's streams: no timeout applies
    /// to the connection while any stream is being answered.
    func streamAnswering(_ connection: any Channel) {
        open.withLockedValue { open in
            guard var entry = open[ObjectIdentifier(connection)] else { return }
            entry.streams += 1
            entry.waitingSince = nil
            open[ObjectIdentifier(connection)] = entry
        }
    }

    /// A stream's response ended (or the client reset it): with no other stream being answered,
    /// the connection waits for its next request.
    func streamEnded(_ connection: any Channel) {
        let now = clock.now()
        open.withLockedValue { open in
            guard var entry = open[ObjectIdentifier(connection)] else { return }
            entry.streams = max(0, entry.streams - 1)
            if entry.streams == 0 { entry.waitingSince = now }
            open[ObjectIdentifier(connection)] = entry
        }
    }

    /// Closes the connections that have waited longer than the request timeout, and those whose
    /// peer took none of their output for the send timeout.
    func sweep() {
        let now = clock.now()
        let (expired, stuck): ([any Channel], [(any Channel, Int)]) = open.withLockedValue { open in
            let keys = open.filter { $0.value.waitingSince.map { now &- $0 > timeoutNanoseconds } ?? false }.map(\.key)
            let stuck = open.values.compactMap { entry in
                entry.stalled.flatMap { now &- $0.since > sendTimeoutNanoseconds ? (entry.channel, $0.unsent) : nil }
            }
            return (keys.compactMap { open.removeValue(forKey: $0)?.channel }, stuck)
        }
        timedOut.add(expired.count, ordering: .relaxed)
        for channel in expired { channel.close(promise: nil) }
        for (channel, unsent) in stuck { closeUnlessProgressed(channel, unsentAtStall: unsent, now: now) }
    }

    /// Writability alone cannot tell a peer that reads slowly from one that reads nothing: the
    /// count of unsent bytes can. Fewer than at the stall: the peer took some, and the wait
    /// starts again from now.
    private func closeUnlessProgressed(_ channel: any Channel, unsentAtStall: Int, now: UInt64) {
        channel.getOption(.bufferedWritableBytes).whenComplete { result in
            if case .success(let unsent) = result, unsent < unsentAtStall {
                self.open.withLockedValue { open in
                    if open[ObjectIdentifier(channel)]?.stalled != nil { open[ObjectIdentifier(channel)]?.stalled = (now, unsent) }
                }
                return
            }
            let removed = self.open.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
            guard removed != nil else { return }  // already closed, or closed by another sweep
            self.sendTimedOut.add(1, ordering: .relaxed)
            channel.close(promise: nil)
        }
    }
}

/// First in every connection's pipeline: registers it with the guard, tells it when the
/// connection's output stalls and drains, and leaves when it closes. (NIO's
/// `BackPressureHandler`, next in the pipeline, holds its reads while it is stalled.)
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

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            connections.drained(context.channel)
        } else {
            let unsent = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
            connections.stalled(context.channel, unsent: unsent)
        }
        context.fireChannelWritabilityChanged()
    }
}

/// Gives freed heap back to the kernel when the last connection closes.
enum ReleasedMemory {
    /// glibc keeps what a burst freed in each event loop thread's arena rather than unmapping it;
    /// without this, RSS measured after hostile peers leave stays near its peak. Rare (only when
    /// the server goes idle) and a few milliseconds, so it costs a serving server nothing.
    static func returnToSystem() {
        _ = ib_malloc_trim()
    }
}
