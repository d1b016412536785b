/// `--retries N`: what a failed fetch may try again, and how long it waits first. Only failures
/// another attempt can cure are retried: timeouts, connection failures, 5xx and 429. A 404, a
/// body beyond --max-bytes or a cancelled load is final. The backoff doubles per attempt with no
/// jitter, so every strategy waits the same.
struct RetryPolicy: Sendable, Equatable, Codable {
    var retries: Int
    /// The wait before the first retry; each later retry waits twice the one before.
    var backoffMilliseconds: Int

    init(retries: Int = 0, backoffMilliseconds: Int = 100) {
        self.retries = retries
        self.backoffMilliseconds = backoffMilliseconds
    }

    /// Whether a fetch that failed with `error` on attempt `attempt` (from 1) goes again.
    func shouldRetry(_ error: FetchError, attempt: Int) -> Bool {
        guard attempt <= retries else { return false }
        switch error {
        case .timeout, .connection: return true
        case .httpStatus(let status, _): return status >= 500 || status == 429
        case .tooLarge, .cancelled: return false
        }
    }

    /// The wait after attempt `attempt` failed, in nanoseconds.
    func backoff(after attempt: Int) -> UInt64 {
        UInt64(backoffMilliseconds) * 1_000_000 << UInt64(min(attempt - 1, 16))
    }
}

/// The fetch attempts of one load under a `RetryPolicy`: which attempt runs, whether its failure
/// goes again, and the wait before it. The wait itself is the load's context's (a worker sleeps,
/// a task suspends, a callback load sets a timer).
struct FetchAttempts: Sendable {
    let policy: RetryPolicy
    /// The attempt running or last run, from 1: what the load reports as its attempts.
    private(set) var number = 1
    /// Body bytes the failed attempts before `number` received (downloaded, so they count).
    private(set) var earlierBytes = 0
    private var lastFailureBytes = 0
    /// Every attempt that failed, what it ended in (the server's count of errors: an attempt a
    /// retry cured failed all the same). A cancelled attempt is not here: it was cut, not failed.
    private(set) var failures: [HTTPFailure] = []

    init(policy: RetryPolicy) {
        self.policy = policy
    }

    /// Whether the attempt that ended in `fetched` goes again (after `backoff`).
    mutating func shouldRetry(after fetched: Result<FetchResult, FetchError>) -> Bool {
        guard case .failure(let error) = fetched else { return false }
        lastFailureBytes = error.partial.bytes
        if let failure = HTTPFailure(error) { failures.append(failure) }
        return policy.shouldRetry(error, attempt: number)
    }

    /// The wait before the next attempt, in nanoseconds.
    var backoff: UInt64 { policy.backoff(after: number) }

    /// The backoff is over: counts the next attempt.
    mutating func next() {
        number += 1
        earlierBytes += lastFailureBytes
    }
}
