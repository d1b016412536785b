/// Reusable fetchers for strategies whose work items run on whatever thread the system picks
/// (OperationQueue, GCD): each running load checks one out and returns it, so there are never more
/// easy handles than loads running at once and each handle's connection stays warm.
public final class CurlFetcherPool: Sendable {
    private let idle = Locked<[CurlFetcher]>([])
    private let limits: FetchLimits

    public init(limits: FetchLimits) { self.limits = limits }

    public func withFetcher<Result>(_ body: (CurlFetcher) throws -> Result) rethrows -> Result {
        let fetcher = idle.withLockedValue { $0.popLast() } ?? CurlFetcher(limits: limits)
        defer { idle.withLockedValue { $0.append(fetcher) } }
        return try body(fetcher)
    }
}
