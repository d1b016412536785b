import Foundation

/// `--retries N`: what a failed fetch may try again, and how long it waits first. Only failures
/// another attempt can cure are retried: timeouts, connection failures, 5xx and 429. A 404, a
/// body beyond --max-bytes or a cancelled load is final. The backoff doubles per attempt with no
/// jitter, so every strategy waits the same.
public struct RetryPolicy: Sendable, Equatable {
    public var retries: Int
    /// The wait before the first retry; each later retry waits twice the one before.
    public var backoffMilliseconds: Int

    public init(retries: Int = 0, backoffMilliseconds: Int = 100) {
        self.retries = retries
        self.backoffMilliseconds = backoffMilliseconds
    }

    /// Whether a fetch that failed with `error` on attempt `attempt` (from 1) goes again.
    public func shouldRetry(_ error: FetchError, attempt: Int) -> Bool {
        guard attempt <= retries else { return false }
        switch error {
        case .timeout, .connection: return true
        case .httpStatus(let status): return status >= 500 || status == 429
        case .tooLarge, .cancelled: return false
        }
    }

    /// The wait after attempt `attempt` failed, in nanoseconds.
    public func backoff(after attempt: Int) -> UInt64 {
        UInt64(backoffMilliseconds) * 1_000_000 << UInt64(min(attempt - 1, 16))
    }

    /// Waits out the backoff on a worker thread; false if the load was cancelled meanwhile (it
    /// then stops at once rather than after the wait).
    func pause(after attempt: Int, token: LoadToken) -> Bool {
        let end = MonotonicClock.now() + backoff(after: attempt)
        while !token.isCancelled {
            let now = MonotonicClock.now()
            guard now < end else { return true }
            Thread.sleep(forTimeInterval: Double(min(end - now, 10_000_000)) / 1e9)
        }
        return false
    }

    /// The same from a task, suspending instead of blocking its thread.
    func pauseAsync(after attempt: Int, token: LoadToken) async -> Bool {
        let end = MonotonicClock.now() + backoff(after: attempt)
        while !token.isCancelled {
            let now = MonotonicClock.now()
            guard now < end else { return true }
            try? await Task.sleep(nanoseconds: min(end - now, 10_000_000))
        }
        return false
    }
}
