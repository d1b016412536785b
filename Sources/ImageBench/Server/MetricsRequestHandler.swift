import NIOCore
import NIOHTTP1

/// Answers `GET /metrics` (and `HEAD`) with the live metrics in Prometheus's text format;
/// anything else with a 404 that says where they are.
final class MetricsRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let metrics: LiveMetrics
    private let finalScrape: FinalScrape
    private var request: HTTPRequestHead?

    init(metrics: LiveMetrics, finalScrape: FinalScrape) {
        self.metrics = metrics
        self.finalScrape = finalScrape
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.prefix { $0 != "?" }
        guard path == "/metrics", head.method == .GET || head.method == .HEAD else {
            return send(.notFound, ByteBuffer(string: "imgbench serves its metrics at /metrics\n"), type: "text/plain; charset=utf-8",
                        head: head, context: context, then: nil)
        }
        // Read before rendering: a scrape that began after the run's end renders final values.
        let final = finalScrape.isRunOver
        let body = ByteBuffer(bytes: metrics.exposition())
        let finalScrape = finalScrape
        let served: (@Sendable () -> Void)? = final ? { @Sendable in finalScrape.finalScrapeServed() } : nil
        send(.ok, body, type: "text/plain; version=0.0.4; charset=utf-8", head: head, context: context, then: served)
    }

    private func send(_ status: HTTPResponseStatus, _ body: ByteBuffer, type: String, head: HTTPRequestHead,
                      context: ChannelHandlerContext, then served: (@Sendable () -> Void)?) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if let served { written.whenSuccess { served() } }
        if !head.isKeepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
