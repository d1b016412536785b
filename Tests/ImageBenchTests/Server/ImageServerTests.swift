import Testing
@testable import ImageBench

@Suite("Embedded image server on loopback")
struct ImageServerTests {
    static let corpus = ImageCorpus.generate(count: 12, seed: 42)

    @Test("serves every corpus image byte for byte over a reused connection")
    func servesCorpus() async throws {
        try await onOwnThread { try Self.servesCorpusBlocking() }
    }

    static func servesCorpusBlocking() throws {
        let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: NetworkProfile.presets[0], seed: 42)
        defer { server.shutdown() }
        let fetcher = CurlFetcher()
        for image in Self.corpus.images {
            let result = try fetcher.fetch("\(server.baseURL)/\(image.path)", expectedBytes: nil, token: LoadToken())
            #expect(result.bytes == image.bytes)
        }
        #expect(server.requestCount == Self.corpus.images.count)
        #expect(server.bytesSent == Self.corpus.totalBytes)
    }

    @Test("unknown paths are 404, classified as an HTTP status error")
    func notFound() async throws {
        try await onOwnThread { try Self.notFoundBlocking() }
    }

    static func notFoundBlocking() throws {
        let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: NetworkProfile.presets[0], seed: 42)
        defer { server.shutdown() }
        #expect(throws: FetchError.httpStatus(404)) {
            try CurlFetcher().fetch("\(server.baseURL)/img/nope.jpg", expectedBytes: nil, token: LoadToken())
        }
    }

    @Test("responses wait their URL's shaped latency, and bodies are paced by the link")
    func shaping() async throws {
        try await onOwnThread { try Self.shapingBlocking() }
    }

    static func shapingBlocking() throws {
        // 120 ms latency with no jitter; a 20 kB/s link. Lower bounds only: a busy machine can
        // only make things slower, never faster than the shaping allows.
        let profile = try NetworkProfile(parsing: "latency=120ms,jitter=0ms,bandwidth=20kB/s")
        let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: profile, seed: 42)
        defer { server.shutdown() }
        let image = Self.corpus.images.min { $0.bytes.count < $1.bytes.count }!
        let start = MonotonicClock().now()
        let result = try CurlFetcher().fetch("\(server.baseURL)/\(image.path)", expectedBytes: nil, token: LoadToken())
        let elapsed = MonotonicClock().now() - start
        #expect(result.bytes == image.bytes)
        #expect(result.timeToFirstByte >= 120_000_000)
        let linkTime = UInt64(Double(image.bytes.count) / 20_000 * 1e9)
        #expect(elapsed >= 120_000_000 + linkTime * 9 / 10)
    }

    @Test("per-URL jitter is fixed by the seed and stays within ± jitter")
    func jitter() throws {
        let wifi = try NetworkProfile(parsing: "wifi")
        let delays = Self.corpus.images.map { wifi.latency(for: "/" + $0.path, seed: 1) }
        #expect(delays == Self.corpus.images.map { wifi.latency(for: "/" + $0.path, seed: 1) })
        #expect(delays != Self.corpus.images.map { wifi.latency(for: "/" + $0.path, seed: 2) })
        #expect(delays.allSatisfy { (20...40).contains($0) })
        #expect(Set(delays).count > 1)
    }

    @Test("network profiles parse presets and specs, and reject nonsense with a reason")
    func profiles() throws {
        #expect(try NetworkProfile(parsing: "3g").latencyMilliseconds == 150)
        let spec = try NetworkProfile(parsing: "latency=80ms,jitter=0.02s,bandwidth=2MB/s")
        #expect(spec.latencyMilliseconds == 80)
        #expect(spec.jitterMilliseconds == 20)
        #expect(spec.bandwidthBytesPerSecond == 2_000_000)
        #expect(throws: NetworkProfile.ParseError.self) { try NetworkProfile(parsing: "nonsense") }
        #expect(throws: NetworkProfile.ParseError.self) { try NetworkProfile(parsing: "latency=fast") }
        #expect(throws: NetworkProfile.ParseError.self) { try NetworkProfile(parsing: "bandwidth=3furlongs") }
    }
}
