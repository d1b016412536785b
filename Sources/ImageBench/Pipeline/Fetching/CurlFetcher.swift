import CCurl

/// A blocking fetch on one reused easy handle (`curl_easy_perform`), as the classic Operation
/// subclass does with its session. Cancellation is checked in curl's write and progress
/// callbacks, so an in-flight transfer stops within one callback (on a stalled connection up to a
/// second, curl's progress interval; the multi transport wakes at once).
///
/// `@unchecked Sendable`: its one easy handle is not thread-safe, and a fetcher is used by one
/// worker at a time (`BlockingTransport` checks it out of its pool for one fetch).
public final class CurlFetcher: @unchecked Sendable {
    private let easy: CurlEasy

    public init(limits: FetchLimits = FetchLimits(), client: Int = 0) {
        easy = CurlEasy(limits: limits, client: client)
    }

    public func fetch(_ url: String, expectedBytes: Int?, attempt: Int = 1, token: LoadToken) throws(FetchError) -> FetchResult {
        easy.prepare(url, expectedBytes: expectedBytes, attempt: attempt, token: token)
        return try easy.finish(curl_easy_perform(easy.handle)).get()
    }
}
