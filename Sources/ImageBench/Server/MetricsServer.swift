import Dispatch
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// `--metrics-address`: serves the live metrics at `http://HOST:PORT/metrics` (SwiftNIO, one
/// event-loop thread: a scrape a second is no load) from before the run until a scrape has read
/// its final values (`finish`). Bound when made, so a port in use or an address that is none
/// stops the command before the run, not minutes into it.
public final class MetricsServer: Sendable {
    /// Where it listens, as bound.
    public let address: MetricsAddress
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let finalScrape = FinalScrape()

    public init(address: MetricsAddress, metrics: LiveMetrics) throws(MetricsServerError) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let finalScrape = self.finalScrape
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(MetricsRequestHandler(metrics: metrics, finalScrape: finalScrape))
                    }
                }
                .bind(host: address.host, port: address.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw MetricsServerError(address: address, error: error)
        }
        self.group = group
        self.address = address
    }

    /// The run is over and the metrics hold their final values: waits until a scrape that read
    /// them has been answered, or `seconds` passed. Whether one was.
    public func finish(waitingAtMost seconds: Double) -> Bool {
        finalScrape.waitForFinalScrape(seconds: seconds)
    }

    public func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Why the metrics could not be served, as one line: `cannot serve metrics at 127.0.0.1:9464:
/// Address already in use`.
public struct MetricsServerError: Error, CustomStringConvertible {
    public let description: String

    init(address: MetricsAddress, error: any Error) {
        let reason: String
        switch error {
        case let error as IOError: reason = String(cString: strerror(error.errnoCode))
        case SocketAddressError.unknown(let host, _): reason = "unknown host '\(host)'"
        default: reason = "\(error)"
        }
        description = "cannot serve metrics at \(address): \(reason)"
    }
}

/// Whether the run is over, and a scrape rendered after that has been answered.
final class FinalScrape: Sendable {
    private let runOver = Atomic<Bool>(false)
    private let served = DispatchSemaphore(value: 0)

    /// Read before a scrape renders: true, and what it renders is final.
    var isRunOver: Bool { runOver.load(ordering: .acquiring) }

    /// A scrape that began after the run's end has been written out.
    func finalScrapeServed() { served.signal() }

    func waitForFinalScrape(seconds: Double) -> Bool {
        runOver.store(true, ordering: .releasing)
        return served.wait(timeout: .now() + seconds) == .success
    }
}
