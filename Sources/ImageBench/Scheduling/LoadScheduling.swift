/// One unit of work a strategy runs: the whole load of one image (fetch, decode, filter, cache,
/// deliver). The strategy decides where and when `run` happens and supplies the fetcher.
public final class LoadJob: Sendable {
    public let id: Int
    public let token: LoadToken
    /// Loads for visible rows run before prefetches.
    public let priority: LoadPriority
    private let work: @Sendable (any ImageFetching) -> Void

    public init(id: Int, token: LoadToken = LoadToken(), priority: LoadPriority = .visible,
                work: @escaping @Sendable (any ImageFetching) -> Void) {
        self.id = id
        self.token = token
        self.priority = priority
        self.work = work
    }

    public func run(with fetcher: any ImageFetching) { work(fetcher) }
}

public enum LoadPriority: Int, Sendable, Comparable {
    case prefetch = 0
    case visible = 1

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The seam every strategy implements: how loads are run concurrently. All strategies share the
/// fetcher, decoders, filters, caches and policies; only this differs.
public protocol LoadScheduling: Sendable {
    /// Queues `job`; it runs when the strategy's limit allows.
    func submit(_ job: LoadJob)
    /// Told after `job.token` was cancelled, so the strategy can drop queued work at once
    /// (`Operation.cancel()`); work already running stops at its own checks.
    func cancel(_ job: LoadJob)
    /// Blocks until every submitted job has run or been dropped.
    func waitUntilIdle()
}

/// The strategies imgbench compares, by their command-line names.
public enum StrategyKind: String, Sendable, Codable, CaseIterable {
    case operationQueue = "operation-queue"

    /// Builds the strategy with at most `concurrency` loads running at once.
    public func makeScheduler(concurrency: Int, fetchLimits: FetchLimits) -> any LoadScheduling {
        switch self {
        case .operationQueue:
            OperationQueueStrategy(maxConcurrentOperationCount: concurrency, fetchers: CurlFetcherPool(limits: fetchLimits))
        }
    }
}
