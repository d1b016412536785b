import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// How a connection to the embedded server speaks, once known: HTTP/1.1 (NIO's server pipeline,
/// pipelining and keep-alive) or HTTP/2, where each stream is a child channel with the same
/// per-request handler behind an HTTP/2-to-HTTP/1 codec, so shaping, faults, Range and manifests
/// act per stream unchanged. Over TLS, ALPN decides; in clear text, the first bytes do
/// (`PriorKnowledgeDetector`).
struct ConnectionProtocols: Sendable {
    /// A handler per HTTP/1.1 connection or HTTP/2 stream (true; each holds one request's state).
    /// `handshake`: the connection's, shared by its streams (`ConnectionHandshake`).
    let makeRequestHandler: @Sendable (_ stream: Bool, _ handshake: ConnectionHandshake?) -> ImageRequestHandler
    let statistics: ServerStatistics
    /// Present when the server speaks TLS (`serve --tls`).
    let tls: NIOSSLContext?

    /// The protocols ALPN offers, best first.
    static let alpn = ["h2", "http/1.1"]

    /// TLS offering h2 and http/1.1 by ALPN, with the server's certificate.
    static func tlsContext(_ identity: TLSIdentity) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: identity.certificateChain.map { .certificate($0) }, privateKey: .privateKey(identity.privateKey))
        configuration.applicationProtocols = alpn
        return try NIOSSLContext(configuration: configuration)
    }

    /// Adds what decides the protocol: TLS then ALPN, or the clear-text preface detector.
    func configureNegotiation(_ channel: any Channel, handshake: ConnectionHandshake? = nil) throws {
        guard let tls else {
            return try channel.pipeline.syncOperations.addHandler(PriorKnowledgeDetector(protocols: self, handshake: handshake))
        }
        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
        // Completed at once: we are on the channel's event loop (the child channel initializer).
        _ = channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try self.configureHTTP2(channel, handshake: handshake) } },
            http1ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try self.configureHTTP1(channel, handshake: handshake) } })
    }

    func configureHTTP1(_ channel: any Channel, handshake: ConnectionHandshake? = nil) throws {
        statistics.http1Connections.add(1, ordering: .relaxed)
        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
        try channel.pipeline.syncOperations.addHandler(makeRequestHandler(false, handshake))
    }

    /// NIO's defaults answer a client's 200th RST_STREAM within 30 s with GOAWAY (its guard
    /// against the rapid-reset attack, CVE-2023-44487). A phone flinging a feed over HTTP/2 resets
    /// a stream for every row that left the screen, about a hundred a second on 3g, so with those
    /// defaults the server, not the protocol, would cost the user a new connection every few
    /// seconds. The limit stays (a peer that resets faster than any scroll still loses its
    /// connection), at a level a fling never reaches: 3,000 resets (and stream errors) in 10 s.
    static let streamConfiguration: NIOHTTP2Handler.StreamConfiguration = {
        var configuration = NIOHTTP2Handler.StreamConfiguration()
        configuration.streamResetFrameRateLimit.maximumCount = 3_000
        configuration.streamResetFrameRateLimit.windowLength = .seconds(10)
        configuration.streamErrorRateLimit.maximumCount = 3_000
        configuration.streamErrorRateLimit.windowLength = .seconds(10)
        return configuration
    }()

    func configureHTTP2(_ channel: any Channel, handshake: ConnectionHandshake? = nil) throws {
        statistics.http2Connections.add(1, ordering: .relaxed)
        let makeRequestHandler = makeRequestHandler
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: .init(), streamConfiguration: Self.streamConfiguration
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try stream.pipeline.syncOperations.addHandler(makeRequestHandler(true, handshake))
            }
        }
    }
}

/// HTTP/2 by prior knowledge (h2c, RFC 9113 §3.3) beside HTTP/1.1 on one clear-text port: a
/// connection whose first bytes are HTTP/2's connection preface speaks HTTP/2, any other HTTP/1.1.
/// Holds bytes only while they are still a strict prefix of the 24-byte preface (at most 23, or
/// one read's worth), then configures the pipeline after itself, passes them on and leaves.
final class PriorKnowledgeDetector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private let protocols: ConnectionProtocols
    private let handshake: ConnectionHandshake?
    private var received: ByteBuffer?

    init(protocols: ConnectionProtocols, handshake: ConnectionHandshake? = nil) {
        self.protocols = protocols
        self.handshake = handshake
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if received != nil { received!.writeBuffer(&bytes) } else { received = bytes }
        guard let received else { return }
        let compared = min(received.readableBytes, Self.preface.count)
        let matches = received.readableBytesView.prefix(compared).elementsEqual(Self.preface.prefix(compared))
        if matches && compared < Self.preface.count { return }  // too few bytes yet to tell
        self.received = nil
        do {
            if matches {
                try protocols.configureHTTP2(context.channel, handshake: handshake)
            } else {
                try protocols.configureHTTP1(context.channel, handshake: handshake)
            }
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(wrapInboundOut(received))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
