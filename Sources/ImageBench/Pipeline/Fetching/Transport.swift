/// How HTTP requests are driven, selectable with `--transport`.
enum TransportKind: String, Sendable, Codable, CaseIterable {
    /// An easy handle per worker, `curl_easy_perform` blocking the worker's thread.
    case blocking
    /// One thread drives every transfer through a curl multi handle; callers wait (threads) or
    /// suspend (Swift concurrency) for their result, and a cancel wakes the driver at once.
    case multi

    /// A transport for one simulated user (`client`, 0 for a single user); a multi transport is
    /// driven by `loop` when given (one thread for every user), else by a thread of its own.
    /// `keepsBodies` false: bodies are counted and discarded.
    func make(limits: FetchLimits, client: Int = 0, loop: CurlLoop? = nil, keepsBodies: Bool = true) -> any Transport {
        switch self {
        case .blocking: BlockingTransport(limits: limits, client: client, keepsBodies: keepsBodies)
        case .multi: CurlMultiTransport(limits: limits, client: client, loop: loop, keepsBodies: keepsBodies)
        }
    }
}

/// One attempt at one load's bytes, as a transport takes it.
struct FetchRequest: Sendable {
    let url: String
    /// `url` with its hash worked out (nil: none was), for the transports that look it up.
    let urlKey: CacheKey?
    /// The body size if known in advance (the corpus): the first buffer is sized to it.
    let expectedBytes: Int?
    /// From 1; a retry sends it (`X-Imgbench-Attempt`) so the embedded server's injected faults
    /// draw again.
    let attempt: Int
    /// The load's state: a cancelled load's transfer stops.
    let token: LoadToken
    /// Watches the body as it arrives (`--progressive`), on the thread running the transfer.
    var bodyObserver: (any BodyObserver)?
    /// `--resume`: where the transfer resumes from (a Range request) and keeps what it got if
    /// cancelled.
    var partials: PartialDownloads?

    init(url: String, urlKey: CacheKey? = nil, expectedBytes: Int? = nil, attempt: Int = 1, token: LoadToken = LoadToken(),
         bodyObserver: (any BodyObserver)? = nil, partials: PartialDownloads? = nil) {
        self.url = url
        self.urlKey = urlKey
        self.expectedBytes = expectedBytes
        self.attempt = attempt
        self.token = token
        self.bodyObserver = bodyObserver
        self.partials = partials
    }
}

/// The seam between the pipeline and HTTP: fetch the bytes of one request and say how it went.
protocol Transport: Sendable {
    var kind: TransportKind { get }
    /// True when `start` does the whole fetch before it returns (on the caller's thread), so a
    /// caller that must not block (the main loop, a network thread) calls it from a worker.
    var blocksCaller: Bool { get }
    /// Fetches `request`; `completion` runs once, with the body or why there is none: before
    /// `start` returns (blocking) or later, on the transport's own thread (multi).
    func start(_ request: FetchRequest, completion: @escaping FetchCompletion)
    /// Releases threads and handles; no fetch may follow.
    func shutdown()
    /// What its transfers cost on the wire (`WireTotals`), where it counts them.
    var wire: WireLedger? { get }
}

extension Transport {
    /// A transport that is not curl's (a test's) counts nothing on the wire.
    var wire: WireLedger? { nil }
}

typealias FetchCompletion = @Sendable (Result<FetchResult, FetchError>) -> Void

/// The blocking transport: a pool of reusable easy handles. Each fetch checks one out for its
/// duration, so there are never more handles than fetches at once and each keeps its connection
/// warm for the next worker.
final class BlockingTransport: Transport {
    let kind = TransportKind.blocking
    let blocksCaller = true
    private let idle = Locked<[CurlFetcher]>([])
    private let limits: FetchLimits

    private let client: Int
    private let keepsBodies: Bool
    let wire: WireLedger? = WireLedger()

    init(limits: FetchLimits, client: Int = 0, keepsBodies: Bool = true) {
        self.limits = limits
        self.client = client
        self.keepsBodies = keepsBodies
    }

    func start(_ request: FetchRequest, completion: @escaping FetchCompletion) {
        let fetcher = idle.withLockedValue { $0.popLast() } ?? CurlFetcher(limits: limits, client: client, keepsBodies: keepsBodies, wire: wire)
        let result = Result { () throws(FetchError) in try fetcher.fetch(request) }
        idle.withLockedValue { $0.append(fetcher) }
        completion(result)
    }

    func shutdown() {
        idle.withLockedValue { $0.removeAll() }
    }
}
