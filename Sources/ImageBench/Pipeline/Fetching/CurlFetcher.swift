import CCurl
import CShims

/// A blocking fetch on one reused easy handle, as the classic Operation subclass does with its
/// session. It drives the handle through a multi handle of its own (what `curl_easy_perform` does
/// inside) so that it wakes every 100 ms: a cancelled load or a transfer silent for
/// `--stall-timeout` stops within that, not at curl's once-a-second checks.
///
/// `@unchecked Sendable`: its handles are not thread-safe, and a fetcher is used by one worker at
/// a time (`BlockingTransport` checks it out of its pool for one fetch).
final class CurlFetcher: @unchecked Sendable {
    private let easy: CurlEasy
    private let multi: UnsafeMutableRawPointer
    /// How long one wait for the sockets lasts at most.
    static let tickMilliseconds: Int32 = 100

    init(limits: FetchLimits = FetchLimits(), client: Int = 0, keepsBodies: Bool = true, wire: WireLedger? = nil) {
        easy = CurlEasy(limits: limits, client: client, keepsBodies: keepsBodies, wire: wire)
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
    }

    deinit {
        curl_multi_cleanup(multi)
    }

    func fetch(_ url: String, expectedBytes: Int?, attempt: Int = 1, token: LoadToken) throws(FetchError) -> FetchResult {
        try fetch(FetchRequest(url: url, expectedBytes: expectedBytes, attempt: attempt, token: token))
    }

    func fetch(_ request: FetchRequest) throws(FetchError) -> FetchResult {
        easy.prepare(request)
        curl_multi_add_handle(multi, easy.handle)
        let code = perform(token: request.token)
        // Removed before `finish` releases the transfer: removing a handle can still call its
        // progress callback, which must find the transfer alive.
        curl_multi_remove_handle(multi, easy.handle)
        return try easy.finish(code).get()
    }

    /// The last response's `Server` header, if it had one.
    var server: String? { easy.responseHeader("Server") }

    /// Drives the transfer until it is done, cancelled or stalled: curl's result code.
    private func perform(token: LoadToken) -> CURLcode {
        var running: Int32 = 0
        while true {
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                if message.pointee.msg == CURLMSG_DONE && message.pointee.easy_handle == easy.handle { return message.pointee.data.result }
            }
            if token.isCancelled || easy.isStalled() { return CURLE_ABORTED_BY_CALLBACK }
            curl_multi_poll(multi, nil, 0, Self.tickMilliseconds, nil)
        }
    }
}
