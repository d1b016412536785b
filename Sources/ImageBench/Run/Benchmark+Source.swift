import Foundation

/// Checking a `--source` before the run: that it answers, and its manifest.
extension Benchmark {
    /// A source nothing answers at is a benchmark that cannot be done: fail in seconds, with the
    /// reason, rather than scroll a whole trace of connection errors. Any HTTP answer will do
    /// (one missing image is a measurement, not a dead source).
    /// A stop request cancels it at once. True when imgbench's own server answered (its `Server`
    /// header): only it reads which user a request is for (`FetchLimits.namesUsers`).
    @discardableResult
    static func preflight(_ url: String, limits: FetchLimits, stop: StopRequest? = nil) throws(BenchmarkError) -> Bool {
        var quick = limits
        quick.timeoutMilliseconds = min(limits.timeoutMilliseconds, 5_000)
        let fetcher = CurlFetcher(limits: quick)
        var answered: Bool { fetcher.server?.hasPrefix("imgbench/") == true }
        do {
            _ = try fetcher.fetch(url, expectedBytes: nil, token: stoppable(by: stop))
        } catch {
            switch error {
            case .httpStatus, .tooLarge: return answered
            // Headers came, then the body stalled or broke: the server answers, which is all this asks.
            case .timeout(let partial) where partial.timeToFirstByte != nil: return answered
            case .connection(_, let partial) where partial.timeToFirstByte != nil: return answered
            case .timeout: throw BenchmarkError(description: "\(url) did not answer within \(quick.timeoutMilliseconds / 1000) s")
            case .connection(let reason, _): throw BenchmarkError(description: "cannot reach \(url): \(reason)")
            case .cancelled: return false
            }
        }
        return answered
    }

    /// The manifest a URL answers with, or why there is none (exit 2: the source is unusable).
    static func fetchManifest(_ url: String, limits: FetchLimits, reach: Int? = nil, stop: StopRequest? = nil) throws(BenchmarkError) -> ImageSource {
        let body: [UInt8]
        do {
            body = try CurlFetcher(limits: limits).fetch(url, expectedBytes: nil, token: stoppable(by: stop)).bytes
        } catch {
            throw BenchmarkError(description: "cannot fetch the manifest at \(url): \(error)")
        }
        do {
            return .manifest(path: url, entries: try Manifest.parse(Data(body), name: url, limit: reach))
        } catch {
            throw BenchmarkError(description: "the manifest at \(error.description)")
        }
    }

    /// A token a stop request cancels: a fetch while preparing ends within the fetcher's 100 ms tick.
    static func stoppable(by stop: StopRequest?) -> LoadToken {
        let token = LoadToken()
        stop?.whenRequested { _ = token.cancel() }
        return token
    }
}
