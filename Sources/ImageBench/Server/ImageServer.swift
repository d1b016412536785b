import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One request the server answered, for `imgbench serve`'s log.
public struct ServedRequest: Sendable, CustomStringConvertible {
    public let method: String
    public let path: String
    public let status: Int
    /// Body bytes the response announced.
    public let bytes: Int
    /// The shaped latency it waited, in milliseconds.
    public let delayMilliseconds: Double
    public let fault: ServerFaults.Kind?

    public var description: String {
        "\(method) \(path) \(status) \(bytes) B after \(String(format: "%.0f", delayMilliseconds)) ms"
            + (fault.map { " (injected \($0.rawValue))" } ?? "")
    }
}

/// The embedded HTTP/1.1 image server (SwiftNIO): keep-alive, Content-Length, TCP_NODELAY (without
/// it a reused loopback connection waits ~40 ms per response on Nagle and delayed ACKs), and the
/// network profile applied server-side: each response waits its URL's latency, then its body is
/// paced through the shared link.
public final class ImageServer: Sendable {
    public let host: String
    public let port: Int
    public let profile: NetworkProfile
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let statistics: ServerStatistics

    /// Requests answered so far (any status).
    public var requestCount: Int { statistics.requests.load(ordering: .relaxed) }
    /// Body bytes written so far.
    public var bytesSent: Int { statistics.bytes.load(ordering: .relaxed) }
    /// Requests answered and faults injected so far.
    public var counts: ServerCounts {
        ServerCounts(requests: requestCount, faults: statistics.faults.withLockedValue { $0 })
    }

    public var baseURL: String { "http://\(host):\(port)" }

    /// Binds and starts serving; `port` 0 picks a free ephemeral port.
    public init(files: ServedFiles, profile: NetworkProfile, seed: UInt64, faults: ServerFaults = .none,
                host: String = "127.0.0.1", port: Int = 0, threads: Int = 1,
                log: (@Sendable (ServedRequest) -> Void)? = nil) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let statistics = ServerStatistics()
        let shaping = ResponseShaping(profile: profile, seed: seed, faults: faults, log: log)
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(
                            ImageRequestHandler(files: files, shaping: shaping, statistics: statistics))
                    }
                }
                .bind(host: host, port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.statistics = statistics
        self.host = host
        self.port = channel.localAddress?.port ?? port
        self.profile = profile
    }

    public func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

final class ServerStatistics: Sendable {
    let requests = Atomic<Int>(0)
    let bytes = Atomic<Int>(0)
    let faults = Locked<[ServerFaults.Kind: Int]>([:])
}

struct ResponseShaping: Sendable {
    let profile: NetworkProfile
    let seed: UInt64
    /// One link per simulated user (`X-Imgbench-Client`, 0 without it): each user's phone has a
    /// radio of its own; its connections share it.
    private let links = Locked<[Int: SharedLink]>([:])

    init(profile: NetworkProfile, seed: UInt64, faults: ServerFaults, log: (@Sendable (ServedRequest) -> Void)?) {
        self.profile = profile
        self.seed = seed
        self.faults = faults
        self.log = log
    }

    func link(for client: Int) -> SharedLink? {
        guard let bandwidth = profile.bandwidthBytesPerSecond else { return nil }
        return links.withLockedValue { links in
            if let link = links[client] { return link }
            let link = SharedLink(bytesPerSecond: bandwidth)
            links[client] = link
            return link
        }
    }
    let faults: ServerFaults
    let log: (@Sendable (ServedRequest) -> Void)?
}

/// Answers GET requests from the served files, shaped by the network profile.
final class ImageRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let files: ServedFiles
    private let shaping: ResponseShaping
    private let statistics: ServerStatistics
    private var request: HTTPRequestHead?
    /// The simulated user of the request being answered (one at a time per connection).
    private var client = 0

    init(files: ServedFiles, shaping: ResponseShaping, statistics: ServerStatistics) {
        self.files = files
        self.shaping = shaping
        self.statistics = statistics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            if let head = request { respond(to: head, context: context) }
            request = nil
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        statistics.requests.add(1, ordering: .relaxed)
        client = head.headers["X-Imgbench-Client"].first.flatMap(Int.init) ?? 0
        let path = String(head.uri.prefix { $0 != "?" })
        func logged(_ status: HTTPResponseStatus, _ bytes: Int, delay: Double = 0, fault: ServerFaults.Kind? = nil) {
            shaping.log?(ServedRequest(method: "\(head.method)", path: path, status: Int(status.code), bytes: bytes,
                                       delayMilliseconds: delay, fault: fault))
        }
        if path == "/manifest.json" && files.files[path] == nil && head.method == .GET {
            // Every served image as an absolute URL, for `--source http://this-server/manifest.json`.
            let host = head.headers["Host"].first ?? "127.0.0.1"
            let urls = files.paths.map { "\"http://\(host)\($0)\"" }
            let body = ByteBuffer(string: "[\n  " + urls.joined(separator: ",\n  ") + "\n]\n")
            logged(.ok, body.readableBytes)
            send(status: .ok, body: body, contentType: "application/json", headOnly: false, context: context)
            return
        }
        guard head.method == .GET || head.method == .HEAD, let file = files.files[path] else {
            let status: HTTPResponseStatus = head.method == .GET ? .notFound : .methodNotAllowed
            let body = ByteBuffer(string: "\(status.code) \(status.reasonPhrase)\n")
            logged(status, body.readableBytes)
            send(status: status, body: body, contentType: "text/plain", headOnly: false, context: context)
            return
        }
        let delay = shaping.profile.latency(for: path, seed: shaping.seed)
        let headOnly = head.method == .HEAD
        let attempt = head.headers["X-Imgbench-Attempt"].first.flatMap(Int.init) ?? 1
        let fault = headOnly ? nil : shaping.faults.fault(path: path, attempt: attempt, seed: shaping.seed)
        if let fault { statistics.faults.withLockedValue { $0[fault, default: 0] += 1 } }
        let answer = {
            logged(fault == .error ? Self.errorStatus(for: path) : .ok, file.body.readableBytes, delay: delay, fault: fault)
            if let fault {
                self.sendFault(fault, file: file, path: path, context: context)
            } else {
                self.send(status: .ok, body: file.body, contentType: file.contentType, headOnly: headOnly, context: context)
            }
        }
        if delay <= 0 {
            answer()
        } else {
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000))) { answer() }
        }
    }

    /// The status an injected `error` answers with: 500 or 503, fixed per path.
    static func errorStatus(for path: String) -> HTTPResponseStatus {
        path.utf8.count % 2 == 0 ? .internalServerError : .serviceUnavailable
    }

    /// An injected fault instead of the file (see `ServerFaults`).
    private func sendFault(_ fault: ServerFaults.Kind, file: ServedFiles.File, path: String, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var half = file.body
        half = half.readSlice(length: file.body.readableBytes / 2) ?? half
        switch fault {
        case .error:
            let status = Self.errorStatus(for: path)
            send(status: status, body: ByteBuffer(string: "\(status.code) \(status.reasonPhrase) (injected)\n"),
                 contentType: "text/plain", headOnly: false, context: context)
        case .truncate:
            writeHead(status: .ok, length: half.readableBytes, contentType: file.contentType, context: context)
            sendBody(half, context: context) { $0.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil) }
        case .reset:
            writeHead(status: .ok, length: file.body.readableBytes, contentType: file.contentType, context: context)
            sendBody(half, context: context) { context in
                // The half body reaches the client first (else curl sees a reused connection die
                // before any data and silently retries); then SO_LINGER 0 makes close() send a
                // RST, as a crashed server's kernel does.
                context.flush()
                let channel = context.channel
                context.eventLoop.scheduleTask(in: .milliseconds(20)) {
                    guard let socket = channel as? any SocketOptionProvider else { return channel.close(promise: nil) }
                    socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
                }
            }
        case .stall:
            writeHead(status: .ok, length: file.body.readableBytes, contentType: file.contentType, context: context)
            sendBody(half, context: context) { $0.flush() }  // and then nothing: the client's timeouts must act
        }
    }

    private func send(status: HTTPResponseStatus, body: ByteBuffer, contentType: String, headOnly: Bool,
                      context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        writeHead(status: status, length: body.readableBytes, contentType: contentType, context: context)
        if headOnly || body.readableBytes == 0 {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            sendBody(body, context: context) { $0.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil) }
        }
    }

    private func writeHead(status: HTTPResponseStatus, length: Int, contentType: String, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(length))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                      promise: nil)
    }

    /// Writes a body, paced through the shared link when there is one, then calls `finish`.
    private func sendBody(_ body: ByteBuffer, context: ChannelHandlerContext, finish: @escaping (ChannelHandlerContext) -> Void) {
        if let link = shaping.link(for: client) {
            context.flush()
            sendPaced(body, through: link, context: context, finish: finish)
        } else {
            statistics.bytes.add(body.readableBytes, ordering: .relaxed)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            finish(context)
        }
    }

    /// Sends the body a chunk at a time, each when the shared link has transmitted it. Stops as
    /// soon as the client goes away, so a cancelled download stops costing link time.
    private func sendPaced(_ remaining: ByteBuffer, through link: SharedLink, context: ChannelHandlerContext,
                           finish: @escaping (ChannelHandlerContext) -> Void) {
        guard context.channel.isActive else { return }
        var rest = remaining
        guard let chunk = rest.readSlice(length: min(link.chunkSize, rest.readableBytes)) else { return finish(context) }
        let now = MonotonicClock.now()
        let wait = link.reserve(chunk.readableBytes, now: now) - now
        context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(wait))) {
            guard context.channel.isActive else { return }
            self.statistics.bytes.add(chunk.readableBytes, ordering: .relaxed)
            if rest.readableBytes == 0 {
                context.write(self.wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
                finish(context)
            } else {
                context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
                self.sendPaced(rest, through: link, context: context, finish: finish)
            }
        }
    }
}
