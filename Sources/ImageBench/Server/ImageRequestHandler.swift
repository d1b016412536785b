import Foundation
import NIOCore
import NIOHTTP1

/// Answers GET requests from the served files, shaped by the network profile; `/manifest.json`
/// and `/manifest.csv` list them (`ServedManifest`). One per HTTP/1.1 connection, or per HTTP/2
/// stream: its channel is then the stream's, so a stream the client resets (RST_STREAM) goes
/// inactive and its delay and paced body stop, while the connection and its other streams go on.
final class ImageRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let files: ServedFiles
    private let shaping: ResponseShaping
    private let statistics: ServerStatistics
    private let connections: ConnectionGuard
    /// The connection's handshake, charged before its first answers (nil: none, as before 0.8).
    private let handshake: ConnectionHandshake?
    /// `http` or `https`, for the manifests' URLs.
    private let scheme: String
    /// On an HTTP/2 stream: its channel's parent is the connection the guard tracks. (A TCP
    /// connection's own parent is the listening socket, so `parent` alone cannot tell.)
    private let stream: Bool
    private var request: HTTPRequestHead?
    /// An HTTP/2 stream between its complete request and its response's end, as the guard was
    /// told (told again if the client resets it, so the connection can idle-time-out again).
    private var streamAnswering = false
    /// The simulated user of the request being answered (one at a time per connection).
    private var client = 0
    /// False when the request being answered asked to close (`Connection: close`, or HTTP/1.0 without keep-alive).
    private var keepAlive = true
    /// What waits for the connection's output to drain below the low water mark: the next
    /// answer, or the rest of a paced body. Answering (or pacing timers writing) regardless
    /// would queue answers in memory for a peer that pipelines requests and reads nothing.
    private var whenWritable: (() -> Void)?

    init(files: ServedFiles, shaping: ResponseShaping, statistics: ServerStatistics, connections: ConnectionGuard,
         scheme: String = "http", stream: Bool = false, handshake: ConnectionHandshake? = nil) {
        self.handshake = handshake
        self.scheme = scheme
        self.stream = stream
        self.files = files
        self.shaping = shaping
        self.statistics = statistics
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            if let head = request {
                if stream, let connection = context.channel.parent {
                    streamAnswering = true
                    connections.streamAnswering(connection)
                } else {
                    connections.answering(context.channel)
                }
                // HTTP/2 has no Connection header: a stream ends, its connection stays.
                keepAlive = head.version.major >= 2 || head.isKeepAlive
                if context.channel.isWritable {
                    respond(to: head, context: context)
                } else {
                    // HTTPServerPipelineHandler holds the requests after this one until its answer ends.
                    whenWritable = { self.respond(to: head, context: context) }
                }
            }
            request = nil
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let resume = whenWritable {
            whenWritable = nil
            resume()
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        whenWritable = nil  // it holds this handler and its context: let both go
        streamEnded(context)
        context.fireChannelInactive()
    }

    /// An HTTP/2 stream's answer is over: tells the guard once.
    private func streamEnded(_ context: ChannelHandlerContext) {
        guard streamAnswering, let connection = context.channel.parent else { return }
        streamAnswering = false
        connections.streamEnded(connection)
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        statistics.requests.add(1, ordering: .relaxed)
        // A user's number keys its link and its fault counts: only imgbench's own range of users
        // (a peer varying the header must not grow them without bound); any other is user 0.
        client = head.headers["X-Imgbench-Client"].first.flatMap(Int.init).flatMap { FlagRanges.sessions.contains($0) ? $0 : nil } ?? 0
        let rawPath = head.uri.prefix { $0 != "?" }
        let path = rawPath.removingPercentEncoding ?? String(rawPath)
        func logged(_ status: HTTPResponseStatus, _ bytes: Int, delay: Double = 0, handshake: Double = 0, fault: ServerFaults.Kind? = nil) {
            shaping.log?(ServedRequest(method: "\(head.method)", path: path, status: Int(status.code), bytes: bytes,
                                       delayMilliseconds: delay, fault: fault, handshakeMilliseconds: handshake))
        }
        if head.method == .GET, let manifest = ServedManifest.Kind(path: path) {
            // Every served image as an absolute URL at the address this connection reached (not
            // the Host header a client may craft), for `--source http://this-server/manifest.json`.
            let body = ByteBuffer(bytes: ServedManifest.body(manifest, files: files, base: ServedManifest.base(of: context.channel, scheme: scheme)))
            logged(.ok, body.readableBytes)
            send(status: .ok, body: body, contentType: manifest.contentType, headOnly: false, context: context)
            return
        }
        guard head.method == .GET || head.method == .HEAD, let file = files.files[path] else {
            let status: HTTPResponseStatus = head.method == .GET ? .notFound : .methodNotAllowed
            let body = ByteBuffer(string: "\(status.code) \(status.reasonPhrase)\n")
            logged(status, body.readableBytes)
            send(status: status, body: body, contentType: "text/plain", headOnly: false, context: context)
            return
        }
        // With --formats, delay and faults are drawn per picture, not per file: `img/7.avif` meets
        // what `img/7.jpg` meets, so formats are compared on the same network.
        let picture = shaping.drawsPerPicture ? Self.picture(path) : path
        // An image answered on a connection still in its handshake waits for it too (the answers
        // that need no shaping, manifests and 404s, never waited).
        let opening = handshake?.remainingMilliseconds(now: shaping.clock.now()) ?? 0
        let delay = shaping.profile.latency(for: picture, seed: shaping.seed) + opening
        let headOnly = head.method == .HEAD
        let fault = headOnly || shaping.faults.isEmpty ? nil
            : shaping.faults.fault(path: picture, request: shaping.requestNumber(path: path, client: client), seed: shaping.seed)
        if let fault { statistics.faults.withLockedValue { $0[fault, default: 0] += 1 } }
        let answer = {
            self.handshake?.answered()
            logged(fault == .error ? Self.errorStatus(for: picture) : .ok, file.body.readableBytes, delay: delay, handshake: opening, fault: fault)
            if let fault {
                self.sendFault(fault, file: file, path: picture, context: context)
            } else {
                self.sendFile(file, path: path, request: head, headOnly: headOnly, context: context)
            }
        }
        if delay <= 0 {
            answer()
        } else {
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000))) { answer() }
        }
    }

    /// A path without its image extension (`/img/7` for `/img/7.jpg` and `/img/7.webp`): what
    /// the network profile and the faults are drawn for.
    static func picture(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), imageExtensions.contains(Substring(path[path.index(after: dot)...])) else { return path }
        return String(path[..<dot])
    }

    private static let imageExtensions = Set(ImageFormat.decodable.map { Substring($0.fileExtension) })

    /// The status an injected `error` answers with: 500 or 503, fixed per picture.
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
            sendBody(half, context: context) { self.end($0) }
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

    /// A served file, whole or the part a `Range` asks for, with its validator.
    private func sendFile(_ file: ServedFiles.File, path: String, request: HTTPRequestHead, headOnly: Bool,
                          context: ChannelHandlerContext) {
        let size = file.body.readableBytes
        // A HEAD's Range is ignored, as RFC 9110 says.
        let range = headOnly ? .whole : ByteRange(headers: request.headers, size: size, etag: file.etag)
        var headers = HTTPHeaders([("ETag", file.etag), ("Accept-Ranges", "bytes")])
        if !headOnly, request.headers["Range"].first != nil {
            let first = if case .part(let first, _) = range { first } else { -1 }
            statistics.ranges.withLockedValue { ranges in
                // Bounded: a load test of resuming clients asks for ranges all day.
                if ranges.count < ServedRange.kept { ranges.append(ServedRange(path: path, first: first, partial: first >= 0)) }
            }
        }
        switch range {
        case .whole:
            send(status: .ok, body: file.body, contentType: file.contentType, headOnly: headOnly, extra: headers, context: context)
        case .part(let first, let last):
            headers.add(name: "Content-Range", value: "bytes \(first)-\(last)/\(size)")
            send(status: .partialContent, body: file.body.getSlice(at: file.body.readerIndex + first, length: last - first + 1)!,
                 contentType: file.contentType, headOnly: headOnly, extra: headers, context: context)
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: "bytes */\(size)")
            send(status: .rangeNotSatisfiable, body: ByteBuffer(), contentType: file.contentType, headOnly: headOnly, extra: headers,
                 context: context)
        }
    }

    private func send(status: HTTPResponseStatus, body: ByteBuffer, contentType: String, headOnly: Bool,
                      extra: HTTPHeaders = HTTPHeaders(), context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        writeHead(status: status, length: body.readableBytes, contentType: contentType, extra: extra, context: context)
        if headOnly || body.readableBytes == 0 {
            end(context)
        } else {
            sendBody(body, context: context) { self.end($0) }
        }
    }

    /// The response's end: the connection waits for its next request, or closes when asked to.
    private func end(_ context: ChannelHandlerContext) {
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if stream {
            streamEnded(context)
        } else if keepAlive {
            connections.waiting(context.channel)
        } else {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func writeHead(status: HTTPResponseStatus, length: Int, contentType: String, extra: HTTPHeaders = HTTPHeaders(),
                           context: ChannelHandlerContext) {
        var headers = extra
        headers.add(name: "Server", value: ImageServer.name)
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(length))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
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
        guard context.channel.isWritable else {
            // Reserve no link time for a peer that is not reading: resume when it has drained.
            whenWritable = { self.sendPaced(remaining, through: link, context: context, finish: finish) }
            return
        }
        var rest = remaining
        guard let chunk = rest.readSlice(length: min(link.chunkSize, rest.readableBytes)) else { return finish(context) }
        let now = link.clock.now()
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
