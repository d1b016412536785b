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

/// The seam between the pipeline and HTTP: fetch the bytes at a URL for a load.
protocol Transport: Sendable {
    var kind: TransportKind { get }
    /// Blocks the calling thread until the body arrives, the fetch fails, or the token is
    /// cancelled.
    /// `attempt` counts from 1; a retry sends it (`X-Imgbench-Attempt`) so the embedded server's
    /// injected faults draw again.
    func fetch(_ url: String, expectedBytes: Int?, attempt: Int, token: LoadToken) throws(FetchError) -> FetchResult
    /// The same for Swift concurrency: suspends the task where the transport can (multi), blocks
    /// its thread where it cannot (blocking: which is exactly what such code does to the
    /// cooperative pool).
    func fetchAsync(_ url: String, expectedBytes: Int?, attempt: Int, token: LoadToken) async throws(FetchError) -> FetchResult
    /// Releases threads and handles; no fetch may follow.
    func shutdown()
}

extension Transport {
    /// A first attempt.
    func fetch(_ url: String, expectedBytes: Int?, token: LoadToken) throws(FetchError) -> FetchResult {
        try fetch(url, expectedBytes: expectedBytes, attempt: 1, token: token)
    }

    func fetchAsync(_ url: String, expectedBytes: Int?, token: LoadToken) async throws(FetchError) -> FetchResult {
        try await fetchAsync(url, expectedBytes: expectedBytes, attempt: 1, token: token)
    }
}

/// The blocking transport: a pool of reusable easy handles. Each fetch checks one out for its
/// duration, so there are never more handles than fetches at once and each keeps its connection
/// warm for the next worker.
final class BlockingTransport: Transport {
    let kind = TransportKind.blocking
    private let idle = Locked<[CurlFetcher]>([])
    private let limits: FetchLimits

    private let client: Int
    private let keepsBodies: Bool

    init(limits: FetchLimits, client: Int = 0, keepsBodies: Bool = true) {
        self.limits = limits
        self.client = client
        self.keepsBodies = keepsBodies
    }

    func fetch(_ url: String, expectedBytes: Int?, attempt: Int, token: LoadToken) throws(FetchError) -> FetchResult {
        let fetcher = idle.withLockedValue { $0.popLast() } ?? CurlFetcher(limits: limits, client: client, keepsBodies: keepsBodies)
        defer { idle.withLockedValue { $0.append(fetcher) } }
        return try fetcher.fetch(url, expectedBytes: expectedBytes, attempt: attempt, token: token)
    }

    func fetchAsync(_ url: String, expectedBytes: Int?, attempt: Int, token: LoadToken) async throws(FetchError) -> FetchResult {
        try fetch(url, expectedBytes: expectedBytes, attempt: attempt, token: token)
    }

    func shutdown() {
        idle.withLockedValue { $0.removeAll() }
    }
}
