/// What went wrong with a load, as counted in reports.
enum LoadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case fetch(FetchError)
    case decode(DecodeError)

    var errorClass: ErrorClass {
        switch self {
        case .fetch(.httpStatus): .httpStatus
        case .fetch(.timeout): .timeout
        case .fetch(.connection), .fetch(.cancelled): .connection
        case .fetch(.tooLarge): .tooLarge
        case .decode(.unsupported): .unsupported
        case .decode(.tooLarge), .decode(.overBudget): .tooLarge
        case .decode(.stopped): .timeout
        case .decode: .decode
        }
    }

    var description: String {
        switch self {
        case .fetch(let error): error.description
        case .decode(let error): error.description
        }
    }
}

/// How a load ended.
enum LoadOutcome: Sendable {
    case image(DecodedImage)
    /// Cancelled while running; it stopped at the next check.
    case cancelled
    case failed(LoadFailure)
}

/// Where a load found its bytes.
enum LoadSource: String, Sendable {
    case disk, network
}

/// A finished load on its way to the main loop.
struct LoadCompletion: Sendable {
    let loadID: Int
    let source: LoadSource
    let outcome: LoadOutcome
    var stages: StageTimes
    /// Body bytes received from the network, complete or not (0 from disk).
    let bytesReceived: Int
    /// Pixels in the source image when it was decoded (what decode cost scales with), else 0.
    let sourcePixels: Int
    /// When the worker finished (monotonic ns).
    let finishedAt: UInt64
    /// Fetch attempts made (1 without retries; 1 for a disk hit).
    var attempts = 1
    /// The HTTP requests of this load that failed, each attempt's own (a retried 503 is one),
    /// and whether its last was cut by a cancel before its answer ended (neither failed nor
    /// succeeded). Network loads only.
    var httpFailures: [HTTPFailure] = []
    var httpCancelled = false
    /// The decoder's warnings: damage it worked around.
    var decodeWarnings = 0
    /// The image's full body size, when known: the bytes received, or for a cancelled transfer
    /// its Content-Length. How sizes a manifest or template does not give are learned.
    var bodySize: Int?
    /// `--resume`: bytes of the body kept from a cancelled transfer (not downloaded again), and
    /// whether the server refused the range and sent the whole body.
    var resumedBytes = 0
    var resumeRefused = false
    /// The connection its last attempt went over (protocol, new or not, connect and TLS time).
    var connection: ConnectionFacts?
}

/// What one load needs to know about its image.
struct LoadRequest: Sendable {
    let url: String
    /// The memory and disk cache key.
    let cacheKey: CacheKey
    /// `url` as a key (hashed once): what the network thread finds its parsed form by.
    let urlKey: CacheKey
    /// The body size if known in advance (the corpus), for savings accounting.
    let expectedBytes: Int?

    init(url: String, cacheKey: CacheKey? = nil, urlKey: CacheKey? = nil, expectedBytes: Int?) {
        self.url = url
        self.urlKey = urlKey ?? CacheKey(url)
        self.cacheKey = cacheKey ?? self.urlKey
        self.expectedBytes = expectedBytes
    }
}
