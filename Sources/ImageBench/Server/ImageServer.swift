import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One request the server answered, for `imgbench serve`'s log.
public struct ServedRequest: Sendable, CustomStringConvertible {
    let method: String
    let path: String
    let status: Int
    /// Body bytes the response announced.
    let bytes: Int
    /// The shaped latency it waited, in milliseconds (its connection's handshake included).
    let delayMilliseconds: Double
    let fault: ServerFaults.Kind?
    /// The part of `delayMilliseconds` that was its connection's handshake (`ConnectionHandshake`).
    var handshakeMilliseconds = 0.0

    public var description: String {
        "\(method) \(path) \(status) \(bytes) B after \(String(format: "%.0f", delayMilliseconds)) ms"
            + (handshakeMilliseconds > 0 ? String(format: " (%.0f ms of it the connection's handshake)", handshakeMilliseconds) : "")
            + (fault.map { " (injected \($0.rawValue))" } ?? "")
    }
}

/// The embedded image server (SwiftNIO), HTTP/1.1 and HTTP/2 (`ConnectionProtocols`): in clear
/// text both on one port (HTTP/2 by prior knowledge), over TLS whichever ALPN chooses; keep-alive (and `Connection: close` honoured),
/// Content-Length, TCP_NODELAY (without it a reused loopback connection waits ~40 ms per response
/// on Nagle and delayed ACKs), the network profile applied server-side (each response waits its
/// URL's latency, then its body is paced through the shared link), and limits on peers that
/// idle, send half a request, open too many connections or read none of their answers (`ConnectionLimits`).
public final class ImageServer: Sendable {
    /// Its `Server` header: how a run with `--source` knows the other side reads which user a
    /// request is for (any version's `imgbench/`).
    static let name = "imgbench/\(ImageBenchVersion.current)"
    let host: String
    let port: Int
    public let profile: NetworkProfile
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let statistics: ServerStatistics
    private let connections: ConnectionGuard
    private let shaping: ResponseShaping
    private let sweep: RepeatedTask

    /// Requests answered so far (any status).
    public var requestCount: Int { statistics.requests.load(ordering: .relaxed) }
    /// Body bytes written so far.
    var bytesSent: Int { statistics.bytes.load(ordering: .relaxed) }
    /// Requests with a `Range` header answered so far, in order.
    var rangeRequests: [ServedRange] { statistics.ranges.withLockedValue { $0 } }
    /// Requests answered, faults injected and connections accepted so far.
    var counts: ServerCounts {
        ServerCounts(requests: requestCount, faults: statistics.faults.withLockedValue { $0 },
                     connections: statistics.connections.load(ordering: .relaxed),
                     http2Connections: statistics.http2Connections.load(ordering: .relaxed))
    }

    /// Whether it speaks TLS (`https://` URLs).
    public let isSecure: Bool
    public var baseURL: String { "\(isSecure ? "https" : "http")://\(host):\(port)" }
    /// Connections open now, the cap on them, and those closed for waiting too long, to make room,
    /// or because their peer read none of their output for the send timeout.
    public var connectionCounts: (open: Int, cap: Int, timedOut: Int, evicted: Int, sendTimedOut: Int) {
        (connections.count, connections.cap, connections.timedOut.load(ordering: .relaxed), connections.evicted.load(ordering: .relaxed),
         connections.sendTimedOut.load(ordering: .relaxed))
    }

    /// Binds and starts serving; `port` 0 picks a free ephemeral port. `drawsPerPicture`: delay
    /// and faults drawn for a picture whatever its format (`--formats`); off, they are drawn per
    /// file path, as every run before formats existed drew them (its results stay comparable).
    /// `tls`: serve HTTPS with this certificate and key (h2 and http/1.1 by ALPN) instead of clear text.
    public init(files: ServedFiles, profile: NetworkProfile, seed: UInt64, faults: ServerFaults = .none,
                host: String = "127.0.0.1", port: Int = 0, threads: Int = 1, limits: ConnectionLimits = .standard,
                drawsPerPicture: Bool = false, tls: TLSIdentity? = nil, log: (@Sendable (ServedRequest) -> Void)? = nil,
                clock: any RunClock = .monotonic) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let statistics = ServerStatistics()
        let connections = ConnectionGuard(limits: limits, clock: clock)
        let shaping = ResponseShaping(profile: profile, seed: seed, faults: faults, drawsPerPicture: drawsPerPicture, log: log,
                                      clock: clock)
        let scheme = tls == nil ? "http" : "https"
        do {
            let protocols = ConnectionProtocols(
                makeRequestHandler: { stream, handshake in
                    ImageRequestHandler(files: files, shaping: shaping, statistics: statistics, connections: connections, scheme: scheme,
                                        stream: stream, handshake: handshake)
                },
                statistics: statistics, tls: try tls.map(ConnectionProtocols.tlsContext))
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelOption(.writeBufferWaterMark, value: ConnectionLimits.writeBufferWaterMark)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        statistics.connections.add(1, ordering: .relaxed)
                        try channel.pipeline.syncOperations.addHandler(ConnectionTracking(connections))
                        // No reads while the output is over the high water mark: a peer that
                        // pipelines requests and reads nothing cannot make the server queue answers.
                        try channel.pipeline.syncOperations.addHandler(BackPressureHandler())
                        // Accepted now: its handshake's round trips are counted from here.
                        let handshake = ConnectionHandshake(profile: profile, tls: tls != nil, clock: clock)
                        try protocols.configureNegotiation(channel, handshake: handshake)
                    }
                }
                .bind(host: host, port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.statistics = statistics
        self.connections = connections
        self.shaping = shaping
        sweep = group.next().scheduleRepeatedTask(initialDelay: .seconds(1), delay: .milliseconds(500)) { _ in connections.sweep() }
        self.host = host
        isSecure = tls != nil
        self.port = channel.localAddress?.port ?? port
        self.profile = profile
    }

    /// Starts the faults' draws again: each run (and warm-up) of a benchmark meets the same faults
    /// on its k-th request of a path, whatever the runs before it asked.
    func restartFaultDraws() {
        shaping.restartRequestNumbers()
    }

    public func shutdown() {
        sweep.cancel()
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

final class ServerStatistics: Sendable {
    let requests = Atomic<Int>(0)
    let bytes = Atomic<Int>(0)
    let faults = Locked<[ServerFaults.Kind: Int]>([:])
    let ranges = Locked<[ServedRange]>([])
    /// Connections accepted, and of them those that came to speak each protocol (a connection
    /// that closes before TLS or its first bytes decide counts in neither).
    let connections = Atomic<Int>(0)
    let http1Connections = Atomic<Int>(0)
    let http2Connections = Atomic<Int>(0)
}

struct ResponseShaping: Sendable {
    let profile: NetworkProfile
    let seed: UInt64
    /// One link per simulated user (`X-Imgbench-Client`, 0 without it): each user's phone has a
    /// radio of its own; its connections share it.
    private let links = Locked<[Int: SharedLink]>([:])

    /// Draw delay and faults for the picture (`/img/7`) rather than the file (`/img/7.jpg`).
    let drawsPerPicture: Bool

    /// Where the links' transmissions are timed.
    let clock: any RunClock

    init(profile: NetworkProfile, seed: UInt64, faults: ServerFaults, drawsPerPicture: Bool = false,
         log: (@Sendable (ServedRequest) -> Void)?, clock: any RunClock = .monotonic) {
        self.clock = clock
        self.profile = profile
        self.seed = seed
        self.drawsPerPicture = drawsPerPicture
        self.faults = faults
        self.log = log
    }

    /// Requests so far for each user and path, so that a fault rate is a share of requests.
    private let requestCounts = Locked<[String: Int]>([:])

    /// This request's number (1, 2, …) among the requests of `path` by `client`.
    func requestNumber(path: String, client: Int) -> Int {
        requestCounts.withLockedValue { counts in
            let key = "\(client) \(path)"
            counts[key, default: 0] += 1
            return counts[key]!
        }
    }

    /// Starts the request numbers again, so the next run meets the faults the last one met.
    func restartRequestNumbers() {
        requestCounts.withLockedValue { $0.removeAll(keepingCapacity: true) }
    }

    func link(for client: Int) -> SharedLink? {
        guard let bandwidth = profile.bandwidthBytesPerSecond else { return nil }
        return links.withLockedValue { links in
            if let link = links[client] { return link }
            let link = SharedLink(bytesPerSecond: bandwidth, clock: clock)
            links[client] = link
            return link
        }
    }
    let faults: ServerFaults
    let log: (@Sendable (ServedRequest) -> Void)?
}
