import Foundation
import Testing
@testable import ImageBench

/// `--faults`: the embedded server's injected failures, and how the client classifies them, on a
/// real loopback server through libcurl.
@Suite("Server faults, error classes and retries")
struct ServerFaultTests {
    static let corpus = ImageCorpus.generate(count: 60, seed: 11)

    @Test("fault specs parse; nonsense and rates above 100% are refused")
    func parsing() throws {
        let faults = try ServerFaults(parsing: "error=2%, reset=1%,stall=1.5%,truncate=0%")
        #expect(faults.rates[.error] == 0.02 && faults.rates[.stall] == 0.015)
        #expect(faults.description == "error=2%,reset=1%,stall=1.500%,truncate=0%")
        #expect(ServerFaults.none.isEmpty && ServerFaults.none.description == "none")
        #expect(throws: ServerFaults.ParseError.self) { try ServerFaults(parsing: "explode=2%") }
        #expect(throws: ServerFaults.ParseError.self) { try ServerFaults(parsing: "error=2") }
        #expect(throws: ServerFaults.ParseError.self) { try ServerFaults(parsing: "error=60%,reset=50%") }
    }

    @Test("which request faults is fixed by seed, path and the path's request number, at the configured rates")
    func deterministic() throws {
        let faults = try ServerFaults(parsing: "error=5%,reset=5%,stall=5%,truncate=5%")
        let paths = (0..<20_000).map { "/img/\($0).jpg" }
        let first = paths.map { faults.fault(path: $0, request: 1, seed: 3) }
        #expect(first == paths.map { faults.fault(path: $0, request: 1, seed: 3) })
        #expect(first != paths.map { faults.fault(path: $0, request: 2, seed: 3) })
        #expect(first != paths.map { faults.fault(path: $0, request: 1, seed: 4) })
        for kind in ServerFaults.Kind.allCases {
            let rate = Double(first.count { $0 == kind }) / Double(paths.count)
            #expect(abs(rate - 0.05) < 0.006, "\(kind): \(rate)")  // 4 standard errors
        }
    }

    /// The corpus on loopback, injecting `faults`.
    static func server(_ faults: ServerFaults, seed: UInt64) throws -> ImageServer {
        try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile.presets[0], seed: seed, faults: faults)
    }

    /// A 1 s stall timeout well inside a 10 s request timeout.
    static let oneSecondStall = FetchLimits(timeoutMilliseconds: 10_000, stallMilliseconds: 1_000)

    /// A corpus image whose first request meets `kind` (nil: no fault).
    static func path(meeting kind: ServerFaults.Kind?, faults: ServerFaults, seed: UInt64) throws -> CorpusImage {
        try #require(corpus.images.first { faults.fault(path: "/" + $0.path, request: 1, seed: seed) == kind })
    }

    @Test("each fault arrives as its class: 5xx → http_status, reset → connection, stall → timeout, truncate → decode")
    func classes() async throws {
        try await onOwnThread {
            let seed: UInt64 = 5
            let faults = try ServerFaults(parsing: "error=20%,reset=20%,stall=20%,truncate=20%")
            let server = try Self.server(faults, seed: seed)
            defer { server.shutdown() }
            let fetcher = CurlFetcher(limits: FetchLimits(timeoutMilliseconds: 5_000, stallMilliseconds: 1_000))
            func fetch(_ image: CorpusImage) -> Result<FetchResult, FetchError> {
                Result { () throws(FetchError) -> FetchResult in
                    try fetcher.fetch("\(server.baseURL)/\(image.path)", expectedBytes: nil, token: LoadToken())
                }
            }
            func failure(_ image: CorpusImage) -> FetchError? {
                if case .failure(let error) = fetch(image) { error } else { nil }
            }
            let clean = try Self.path(meeting: nil, faults: faults, seed: seed)
            #expect(try fetch(clean).get().bytes == clean.bytes)

            let error = failure(try Self.path(meeting: .error, faults: faults, seed: seed))
            #expect(error == .httpStatus(500) || error == .httpStatus(503), "\(String(describing: error))")
            let reset = try #require(failure(try Self.path(meeting: .reset, faults: faults, seed: seed)), "a reset mid-body must fail")
            #expect(LoadFailure.fetch(reset).errorClass == .connection, "\(reset)")
            #expect(failure(try Self.path(meeting: .stall, faults: faults, seed: seed)) == .timeout())

            let truncatedImage = try Self.path(meeting: .truncate, faults: faults, seed: seed)
            let truncated = try fetch(truncatedImage).get()
            #expect(truncated.bytes == Array(truncatedImage.bytes.prefix(truncatedImage.bytes.count / 2)))
            #expect(server.counts.faults == [.error: 1, .reset: 1, .stall: 1, .truncate: 1])
            #expect(server.counts.requests == 5)
        }
    }

    @Test("a body that goes silent fails as a timeout about one stall timeout after its last byte, on either transport")
    func stallTimeout() async throws {
        try await onOwnThread {
            let seed: UInt64 = 5
            let faults = try ServerFaults(parsing: "stall=100%")
            let server = try Self.server(faults, seed: seed)
            defer { server.shutdown() }
            let limits = Self.oneSecondStall
            for transport in TransportKind.allCases.map({ $0.make(limits: limits) }) {
                defer { transport.shutdown() }
                let started = MonotonicClock().now()
                #expect(throws: FetchError.timeout()) {
                    try transport.fetch("\(server.baseURL)/\(Self.corpus.images[0].path)", expectedBytes: nil, token: LoadToken())
                }
                // Within stall + 0.5 s the issue asks; a loaded machine gets another second. curl's
                // own low-speed check took about 3 s.
                let seconds = Double(MonotonicClock().now() - started) / 1e9
                #expect(seconds >= 0.95 && seconds < 2.5, "\(transport.kind): \(seconds) s")
            }
        }
    }

    @Test("a failed fetch keeps what arrived: the bytes (counted as downloaded) and a true time to first byte; the source check accepts a server that answered")
    func partialTransfers() async throws {
        try await onOwnThread {
            let seed: UInt64 = 5
            let faults = try ServerFaults(parsing: "reset=50%,stall=50%")
            let server = try Self.server(faults, seed: seed)
            defer { server.shutdown() }
            let limits = Self.oneSecondStall
            for kind in [ServerFaults.Kind.stall, .reset] {
                let image = try Self.path(meeting: kind, faults: faults, seed: seed)
                let url = "\(server.baseURL)/\(image.path)"
                server.restartFaultDraws()
                do throws(FetchError) {
                    _ = try CurlFetcher(limits: limits).fetch(url, expectedBytes: nil, token: LoadToken())
                    Issue.record("\(kind): the fetch succeeded")
                } catch {
                    // The server sends the headers and half the body before it stalls or resets.
                    #expect(error.partial.bytes == image.bytes.count / 2, "\(kind): \(error)")
                    let firstByte = try #require(error.partial.timeToFirstByte, "\(kind): no time to first byte")
                    #expect(firstByte < 900_000_000, "\(kind): first byte after \(firstByte) ns, the stall is 1 s")
                    #expect(error.description.hasSuffix("after \(image.bytes.count / 2) bytes"), "\(error.description)")
                }
                // Through the pipeline: the bytes are counted, and the stages split at the first byte.
                server.restartFaultDraws()
                let pipeline = ImagePipeline(processor: ImageFilter.none, memoryCache: MemoryCache(costLimit: 1 << 24))
                let completion = try #require(pipeline.load(LoadRequest(url: url, expectedBytes: nil), id: 0, token: LoadToken(),
                                                            submittedAt: MonotonicClock().now(),
                                                            transport: BlockingTransport(limits: limits))?.output?.completion)
                #expect(completion.bytesReceived == image.bytes.count / 2, "\(kind)")
                #expect(completion.stages.timeToFirstByte < 900_000_000, "\(kind): \(completion.stages)")
                if kind == .stall { #expect(completion.stages.transfer >= 900_000_000, "\(completion.stages)") }
                // It answered: the source check passes (it asks only for an answer), and knows imgbench.
                server.restartFaultDraws()
                #expect(try Benchmark.preflight(url, limits: limits), "\(kind)")
            }
        }
    }

    @Test("--retries: a 5xx is fetched again with the next attempt number; a 404 is not")
    func retries() async throws {
        try await onOwnThread {
            let seed: UInt64 = 8
            let faults = try ServerFaults(parsing: "error=50%")
            // An image whose first attempt fails and whose second does not.
            let image = try #require(Self.corpus.images.first {
                faults.fault(path: "/" + $0.path, request: 1, seed: seed) == .error
                    && faults.fault(path: "/" + $0.path, request: 2, seed: seed) == nil
            })
            let server = try Self.server(faults, seed: seed)
            defer { server.shutdown() }
            let transport = BlockingTransport(limits: FetchLimits())
            func load(_ url: String, retries: Int) -> LoadCompletion? {
                let pipeline = ImagePipeline(processor: ImageFilter.none, memoryCache: MemoryCache(costLimit: 1 << 24),
                                             retry: RetryPolicy(retries: retries, backoffMilliseconds: 1))
                let token = LoadToken()
                return pipeline.load(LoadRequest(url: url, expectedBytes: nil), id: 0, token: token,
                                     submittedAt: MonotonicClock().now(), transport: transport)?.output?.completion
            }
            let once = try #require(load("\(server.baseURL)/\(image.path)", retries: 0))
            guard case .failed(.fetch(.httpStatus)) = once.outcome else { Issue.record("\(once.outcome)"); return }
            server.restartFaultDraws()  // the path's first request again: the same 5xx, then a clean retry
            let twice = try #require(load("\(server.baseURL)/\(image.path)", retries: 2))
            guard case .image = twice.outcome else { Issue.record("\(twice.outcome)"); return }
            #expect(twice.attempts == 2)
            let missing = try #require(load("\(server.baseURL)/img/none.jpg", retries: 2))
            #expect(missing.attempts == 1)
            #expect(server.counts.requests == 4)
        }
    }
}
