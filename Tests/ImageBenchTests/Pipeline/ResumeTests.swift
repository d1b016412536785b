import Foundation
import Testing
@testable import ImageBench

/// Cancels its load once half the body has arrived: a row that scrolled away mid-transfer.
final class CancelHalfway: BodyObserver, Sendable {
    let token: LoadToken, half: Int
    init(token: LoadToken, size: Int) { (self.token, half) = (token, size / 2) }
    func bodyGrew(_ body: [UInt8]) { if body.count >= half { _ = token.cancel() } }
}

@Suite("Resumed downloads (--resume)", .serialized)
struct ResumeTests {
    /// The corpus's largest JPEG: many of curl's 16 kB writes, so half of it is half.
    static let corpus = ImageCorpus.generate(count: 30, seed: 1)
    static var image: CorpusImage { corpus.images.filter { $0.format == .jpeg }.max { $0.bytes.count < $1.bytes.count }! }

    /// A transfer of `url` cancelled half-way: what it kept.
    static func cancelHalfway(_ url: String, size: Int, into partials: PartialDownloads, transport: any Transport) throws -> Int {
        let token = LoadToken()
        _ = token.begin()
        let request = FetchRequest(url: url, token: token, bodyObserver: CancelHalfway(token: token, size: size), partials: partials)
        #expect(throws: FetchError.self) { try transport.fetch(request) }
        try #require(partials.count == 1, "the cancelled transfer's body is kept")
        let kept = try #require(partials.take(url))
        partials.keep(url, bytes: kept.bytes, validator: kept.validator, total: kept.total)
        #expect(kept.bytes.count >= size / 2 && kept.bytes.count < size && kept.total == size)
        #expect(Array(Self.image.bytes.prefix(kept.bytes.count)) == kept.bytes)
        return kept.bytes.count
    }

    static func fetchAgain(_ url: String, partials: PartialDownloads, transport: any Transport) throws -> FetchResult {
        let token = LoadToken()
        _ = token.begin()
        return try transport.fetch(FetchRequest(url: url, token: token, partials: partials))
    }

    @Test("a transfer cancelled half-way resumes with a Range request for the rest; the image is byte for byte the whole download")
    func resumesFromTheEmbeddedServer() throws {
        let image = Self.image
        let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: .unshaped, seed: 1)
        defer { server.shutdown() }
        let transport = BlockingTransport(limits: FetchLimits())
        let url = "\(server.baseURL)/\(image.path)", partials = PartialDownloads()
        let kept = try Self.cancelHalfway(url, size: image.bytes.count, into: partials, transport: transport)
        let result = try Self.fetchAgain(url, partials: partials, transport: transport)
        #expect(result.bytes == image.bytes)
        #expect(result.resumedBytes == kept && result.size == image.bytes.count - kept && !result.resumeRefused)
        #expect(server.rangeRequests == [ServedRange(path: "/" + image.path, first: kept, partial: true)])
        #expect(partials.count == 0)
        let whole = try JPEGDecoder().decode(image.bytes, targetSize: ImagePipeline.defaultTargetSize, limits: DecodeLimits())
        let resumed = try JPEGDecoder().decode(result.bytes, targetSize: ImagePipeline.defaultTargetSize, limits: DecodeLimits())
        #expect(resumed.pixels == whole.pixels)
    }

    @Test("nginx honours the range; nginx with max_ranges 0 ignores it, and the whole body it sends is used and counted")
    func thirdPartyServers() throws {
        let image = Self.image
        let root = try Fixtures.temporaryDirectory("resume-root")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("img"), withIntermediateDirectories: true)
        try Data(image.bytes).write(to: root.appendingPathComponent(image.path))
        for ignores in [false, true] {
            let nginx = try Nginx(root: root, extra: ignores ? "max_ranges 0;" : "")
            defer { nginx.stop() }
            let transport = BlockingTransport(limits: FetchLimits())
            let url = "\(nginx.baseURL)/\(image.path)", partials = PartialDownloads()
            let kept = try Self.cancelHalfway(url, size: image.bytes.count, into: partials, transport: transport)
            let result = try Self.fetchAgain(url, partials: partials, transport: transport)
            #expect(result.bytes == image.bytes, "max_ranges 0: \(ignores)")
            if ignores {
                #expect(result.resumeRefused && result.resumedBytes == 0 && result.size == image.bytes.count)
            } else {
                #expect(!result.resumeRefused && result.resumedBytes == kept && result.size == image.bytes.count - kept)
            }
        }
    }

    @Test("an If-Range naming another version gets the whole file; ranges are parsed as RFC 9110 says")
    func rangeParsing() {
        func range(_ value: String?, ifRange: String? = nil) -> ByteRange {
            ByteRange(range: value, ifRange: ifRange, size: 100, etag: "\"v1\"")
        }
        #expect(range(nil) == .whole)
        #expect(range("bytes=10-") == .part(first: 10, last: 99))
        #expect(range("bytes=10-19") == .part(first: 10, last: 19))
        #expect(range("bytes=90-500") == .part(first: 90, last: 99))
        #expect(range("bytes=10-", ifRange: "\"v1\"") == .part(first: 10, last: 99))
        #expect(range("bytes=10-", ifRange: "\"v0\"") == .whole)
        #expect(range("bytes=10-", ifRange: "Tue, 15 Nov 1994 08:12:31 GMT") == .whole)
        #expect(range("bytes=100-") == .unsatisfiable)
        #expect(range("bytes=0-4,10-14") == .whole)
        #expect(range("bytes=-5") == .whole)
        #expect(range("bytes=20-10") == .whole)
        #expect(range("bytes=150-120") == .whole)  // invalid before unsatisfiable
        #expect(range("Bytes=10-") == .part(first: 10, last: 99))
        #expect(range("items=1-2") == .whole)
        #expect(range("bytes=x-") == .whole)
    }

    @Test("partial bodies are kept only with a validator and while incomplete, oldest first out past the limit")
    func partialStore() {
        let partials = PartialDownloads(limitBytes: 250)
        partials.keep("a", bytes: [1, 2], validator: nil, total: 10)
        partials.keep("b", bytes: [1, 2], validator: "\"x\"", total: 2)
        #expect(partials.count == 0)
        for name in ["c", "d", "e"] { partials.keep(name, bytes: [UInt8](repeating: 7, count: 100), validator: "\"x\"", total: 200) }
        #expect(partials.count == 2 && partials.take("c") == nil && partials.take("e")?.bytes.count == 100)
    }

    @Test("in a run that scrolls back over cancelled transfers, loads resume with ranges, download fewer bytes than without --resume, and every image still decodes")
    func resumesInARun() async throws {
        // The same trace and seed with and without --resume, every frame of it drawn.
        func run(resume: Bool) async throws -> (RunSummary, [ServedRange]) {
            try await onOwnThread {
                var settings = RunSettings()
                settings.rows = 200
                settings.scroll = .revisit
                settings.network = try NetworkProfile(parsing: "latency=60ms,bandwidth=300KB/s")
                settings.settleSeconds = 1
                settings.resume = resume
                return try Fixtures.withServedWorkload(settings, seconds: 15) { workload, server in
                    let run = ScrollRun(workload: workload, settings: settings, cell: RunCell(strategy: .threads, concurrency: 4, repetition: 1))
                    return (run.runEveryFrame().summary, server.rangeRequests)
                }
            }
        }
        let (summary, ranges) = try await run(resume: true)
        let (plain, plainRanges) = try await run(resume: false)
        let report = "with --resume \(summary.bytesDownloaded) B downloaded (\(summary.bytesResumed) B resumed, \(summary.resumedLoads) loads), "
            + "without \(plain.bytesDownloaded) B; \(summary.cancelledInflight) and \(plain.cancelledInflight) cancelled in flight"
        print("resume: \(report)")
        #expect(summary.resumedLoads > 0 && summary.bytesResumed > 0, "\(report)")
        // Every resumed load was a range the server answered with its part (a resumed transfer
        // can itself be cancelled again); the embedded server refuses none.
        #expect(summary.resumedLoads <= ranges.filter(\.partial).count && summary.resumesRefused == 0)
        #expect(summary.errors == 0 && summary.decodeWarnings == 0)
        // Without --resume no range is asked for, and the bytes resuming reused are downloaded
        // again: the same trace costs more.
        #expect(plainRanges.isEmpty && plain.bytesResumed == 0 && plain.errors == 0, "\(report)")
        #expect(summary.bytesDownloaded < plain.bytesDownloaded, "\(report)")
    }
}
