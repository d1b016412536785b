import Foundation
import Testing
@testable import ImageBench

/// The network model's connection cost: the embedded server holds a new connection's first
/// answer for the profile's handshake round trips (`ConnectionHandshake`), and answers on a
/// connection already open without it.
@Suite("What a new connection costs")
struct HandshakeCostTests {
    static let profile = NetworkProfile.presets.first { $0.name == "3g" }!

    /// The requests the server logged while `body` fetched from it.
    static func served(clock: any RunClock, _ body: (_ baseURL: String, _ paths: [String]) throws -> Void) throws -> [ServedRequest] {
        let corpus = ImageCorpus.generate(count: 3, seed: 5)
        let log = Locked<[ServedRequest]>([])
        let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: profile, seed: 5,
                                     log: { served in log.withLockedValue { $0.append(served) } }, clock: clock)
        defer { server.shutdown() }
        try body(server.baseURL, corpus.images.map(\.path))
        return log.withLockedValue { $0 }
    }

    @Test("on 3g a new connection's first answer waits one round trip (150 ms) more, to the millisecond on the server's clock; the next answer on it does not; a new connection pays again")
    func serverTimings() throws {
        // The shaping clock stands still: the time from accepting the connection to its request
        // is 0 on it, so the charge is exactly the round trip.
        let clock = ManualClock()
        let log = try Self.served(clock: clock) { baseURL, paths in
            let kept = CurlFetcher()
            _ = try kept.fetch("\(baseURL)/\(paths[0])", expectedBytes: nil, token: LoadToken())
            _ = try kept.fetch("\(baseURL)/\(paths[1])", expectedBytes: nil, token: LoadToken())
            _ = try CurlFetcher().fetch("\(baseURL)/\(paths[2])", expectedBytes: nil, token: LoadToken())
        }
        #expect(log.map(\.handshakeMilliseconds) == [150, 0, 150], "\(log)")
        for served in log {
            let latency = Self.profile.latency(for: "/" + served.path.drop { $0 == "/" }, seed: 5)
            #expect(abs(served.delayMilliseconds - served.handshakeMilliseconds - latency) < 1e-9, "\(served)")
        }
        #expect(ConnectionHandshake.milliseconds(profile: Self.profile, tls: false) == 150)
        #expect(ConnectionHandshake.milliseconds(profile: Self.profile, tls: true) == 300)
    }

    @Test("through curl on the real clock: the first image's time to first byte includes the round trip (a lower bound only: the host may be slow)")
    func clientSees() throws {
        var firsts: [UInt64] = [], seconds: [UInt64] = []
        let log = try Self.served(clock: .monotonic) { baseURL, paths in
            let fetcher = CurlFetcher()
            firsts.append(try fetcher.fetch("\(baseURL)/\(paths[0])", expectedBytes: nil, token: LoadToken()).timeToFirstByte)
            seconds.append(try fetcher.fetch("\(baseURL)/\(paths[1])", expectedBytes: nil, token: LoadToken()).timeToFirstByte)
        }
        let latencies = log.map { $0.delayMilliseconds - $0.handshakeMilliseconds }
        #expect(log.count == 2 && log[0].handshakeMilliseconds > 150 - 1000.0 / 60 && log[1].handshakeMilliseconds == 0, "\(log)")
        #expect(Double(firsts[0]) / 1e6 >= latencies[0] + 150 - 1, "\(firsts) \(log)")
        #expect(Double(seconds[0]) / 1e6 >= latencies[1] - 1, "\(seconds) \(log)")
    }
}
