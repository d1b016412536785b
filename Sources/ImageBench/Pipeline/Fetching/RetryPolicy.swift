import Foundation

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
/// goes again, and the wait before it. The fetch itself is the caller's (a worker blocks, a task
/// suspends), so only the pause has a blocking and an async form; the decisions exist once.
struct FetchAttempts {
    let policy: RetryPolicy
    let token: LoadToken
    /// The attempt running or last run, from 1: what the load reports as its attempts.
    private(set) var number = 1
    /// Body bytes the failed attempts before `number` received (downloaded, so they count).
    private(set) var earlierBytes = 0
    private var lastFailureBytes = 0

    init(policy: RetryPolicy, token: LoadToken) {
        self.policy = policy
        self.token = token
    }

    /// Whether the attempt that ended in `fetched` goes again (after a `pause`).
    mutating func shouldRetry(after fetched: Result<FetchResult, FetchError>) -> Bool {
        guard case .failure(let error) = fetched else { return false }
        lastFailureBytes = error.partial.bytes
        return policy.shouldRetry(error, attempt: number)
    }

    /// Waits out the backoff on a worker thread, then counts the next attempt. False if the load
    /// was cancelled meanwhile: it then stops at once rather than after the wait, and the count
    /// stays at the attempts really made.
    mutating func pause() -> Bool {
        let end = MonotonicClock.now() + policy.backoff(after: number)
        while !token.isCancelled {
            let now = MonotonicClock.now()
            guard now < end else { return next() }
            Thread.sleep(forTimeInterval: Double(min(end - now, 10_000_000)) / 1e9)
        }
        return false
    }

    /// The same from a task, suspending instead of blocking its thread.
    mutating func pauseAsync() async -> Bool {
        let end = MonotonicClock.now() + policy.backoff(after: number)
        while !token.isCancelled {
            let now = MonotonicClock.now()
            guard now < end else { return next() }
            try? await Task.sleep(nanoseconds: min(end - now, 10_000_000))
        }
        return false
    }

    /// The same with no thread to wait on: `then` runs once, after the backoff with the attempts
    /// counted on, or with nil as soon as the load is cancelled (its slot and the run's end must
    /// not wait out a backoff for nothing).
    func pauseEvented(then: @escaping @Sendable (FetchAttempts?) -> Void) {
        let waited = self
        let answered = Locked(false)
        let once: @Sendable (FetchAttempts?) -> Void = { attempts in
            let first = answered.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { then(attempts) }
        }
        token.onCancel { once(nil) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(policy.backoff(after: number)))) {
            guard !waited.token.isCancelled else { return once(nil) }
            var attempts = waited
            _ = attempts.next()
            once(attempts)
        }
    }

    private mutating func next() -> Bool {
        number += 1
        earlierBytes += lastFailureBytes
        return true
    }
}
