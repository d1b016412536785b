import Foundation
import CCurl
import CShims

/// One libcurl easy handle, configured once and reused for many requests so its connection stays
/// alive. Not thread-safe: a transport gives each handle to one user at a time, which is why the
/// class can be `@unchecked Sendable`.
final class CurlEasy: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    let limits: FetchLimits
    /// The transfer in progress, kept alive while curl holds a pointer to it.
    private(set) var transfer: CurlTransfer?
    /// The header list of a retry (`X-Imgbench-Attempt`), owned until the next request.
    private var headers: UnsafeMutablePointer<curl_slist>?
    /// The attempt `headers` was built for (0: none yet).
    private var headersAttempt = 0

    /// The simulated user (`--clients`) it fetches for, sent as `X-Imgbench-Client` so the
    /// embedded server gives each user a link of its own; 0 sends nothing (so does a server that
    /// is not imgbench's: `FetchLimits.namesUsers`).
    let client: Int
    /// False: bodies are counted as they arrive and not kept (`--no-decode` with no disk cache
    /// fetches and discards; keeping them would cost a buffer and a copy per image for nothing).
    let keepsBodies: Bool
    /// Where each finished transfer's wire figures go (a run's user's transport), if anywhere.
    let wire: WireLedger?
    /// Whether curl enforces `--timeout` over the whole transfer (`CURLOPT_TIMEOUT_MS`) or the
    /// multi transport's sweep does (`isStalled`, every tick of its loop, so within 100 ms): that
    /// timer costs curl about 800 instructions a transfer beside the connect timeout's (callgrind
    /// of scripts/curl-floor.c: 62,600 a request with both, 61,800 with the connect timeout only).
    /// A timeout under a second stays with curl, whose timer keeps it to the millisecond.
    private let curlTimesOut: Bool

    /// The User-Agent line each request sends (nil: none), worked out once.
    private let userAgentLine: String?

    /// `cancelsItself` false: the caller removes cancelled transfers itself (the multi transport's
    /// loop does, at once), so curl need not call back on every progress step to ask.
    init(limits: FetchLimits, client: Int = 0, keepsBodies: Bool = true, cancelsItself: Bool = true, wire: WireLedger? = nil) {
        self.client = limits.namesUsers ? client : 0
        self.keepsBodies = keepsBodies
        self.wire = wire
        CurlGlobal.initialize()
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        self.handle = handle
        self.limits = limits
        curlTimesOut = cancelsItself || limits.timeoutMilliseconds < 1_000
        userAgentLine = Self.userAgentLine(limits)
        ib_curl_easy_set_long(handle, CURLOPT_NOSIGNAL, 1)  // signals and threads do not mix
        ib_curl_easy_set_long(handle, CURLOPT_TCP_NODELAY, 1)
        ib_curl_easy_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        ib_curl_easy_set_long(handle, CURLOPT_MAXREDIRS, 5)
        // Only the web, asked for or redirected to: a hostile server's Location: ftp://, file://
        // or gopher:// is refused by curl before any connection.
        ib_curl_easy_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        ib_curl_easy_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        if curlTimesOut { ib_curl_easy_set_long(handle, CURLOPT_TIMEOUT_MS, limits.timeoutMilliseconds) }
        // Always curl's: with several addresses for a host, curl gives each connection attempt
        // half of what is left of it (2.5 s of 5 s), so a dead first address fails over to the
        // next; without it the budget is curl's 300 s, and the transfer would time out first.
        ib_curl_easy_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(5_000, limits.timeoutMilliseconds))
        // A stalled transfer (no byte for `stallMilliseconds`) is found by the transports'
        // polling loops (`isStalled`), not by curl's LOW_SPEED_TIME: that averages its speed over
        // the last seconds and checks once a second, so a 1 s stall fired after about 3 s.
        // A Content-Length beyond --max-bytes fails before the body is read (the write callback
        // catches bodies without one).
        ib_curl_easy_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxBytes))
        ib_curl_easy_set_long(handle, CURLOPT_NOPROGRESS, cancelsItself ? 0 : 1)
        // curl reads the proxy variables from the environment for every request (five getenv
        // calls and copies, about 2,000 instructions); when none is set, saying "no proxy" once
        // here is the same answer.
        if !CurlGlobal.environmentNamesProxy {
            ib_curl_easy_set_string(handle, CURLOPT_PROXY, "")
            ib_curl_easy_set_string(handle, CURLOPT_NOPROXY, "")
        }
        // Fetched to be discarded (a load test's `--no-decode`): read up to 64 kB a call rather
        // than curl's 16 kB, so most images (the corpus's: 21 kB median, 31 kB mean) arrive in one
        // recv rather than two or three. Kept bodies keep curl's default: progressive decoding
        // and partial downloads see the pieces they always saw.
        if !keepsBodies { ib_curl_easy_set_long(handle, CURLOPT_BUFFERSIZE, 65_536) }
        ib_curl_easy_set_long(handle, CURLOPT_HTTP_VERSION, limits.httpVersion.curlOption)
        // HTTP/2: a transfer waits for the connection being opened to say whether it multiplexes
        // rather than opening one of its own, so a user's first burst shares one connection.
        if limits.httpVersion == .http2 { ib_curl_easy_set_long(handle, CURLOPT_PIPEWAIT, 1) }
        if let caFile = limits.caFile { ib_curl_easy_set_string(handle, CURLOPT_CAINFO, caFile) }
        ib_curl_easy_set_write_function(handle, curlWrite)
        ib_curl_easy_set_header_function(handle, curlHeader)
        ib_curl_easy_set_xferinfo_function(handle, curlProgress)
    }

    /// The User-Agent header line `limits` asks for; nil for none (`--user-agent ""`).
    static func userAgentLine(_ limits: FetchLimits) -> String? {
        let agent = limits.userAgent ?? FetchLimits.defaultUserAgent
        return agent.isEmpty ? nil : "User-Agent: \(agent)"
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headers)
    }

    /// Points the handle at the request's URL with a fresh transfer state. `parsedURL`: that URL
    /// already parsed (`ParsedURLs`), which spares curl parsing it again; nil sends it as text.
    func prepare(_ request: FetchRequest, parsedURL: OpaquePointer? = nil) {
        let (url, attempt) = (request.url, request.attempt)
        let partials = keepsBodies ? request.partials : nil
        let resumeFrom = partials?.take(url)
        let transfer = CurlTransfer(token: request.token, maxBytes: limits.maxBytes,
                                    expectedBytes: keepsBodies ? request.expectedBytes : nil, keepsBody: keepsBodies, url: url,
                                    observer: keepsBodies ? request.bodyObserver : nil, partials: partials, resumeFrom: resumeFrom)
        self.transfer = transfer
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        // A parsed handle takes precedence over the text, so the text path clears any earlier one.
        ib_curl_easy_set_pointer(handle, CURLOPT_CURLU, parsedURL.map { UnsafeMutableRawPointer($0) })
        if parsedURL == nil { ib_curl_easy_set_string(handle, CURLOPT_URL, url) }
        // A first attempt's headers are the same every time: built once per handle (a resumed
        // one's, with its range, once for that request).
        if attempt > 1 || headersAttempt != 1 || resumeFrom != nil {
            curl_slist_free_all(headers)
            headers = nil
            // The User-Agent goes in this list rather than CURLOPT_USERAGENT: curl 7.88 formats that
            // option into every request twice, a byte at a time (about 4,000 instructions a request).
            if let userAgentLine { headers = curl_slist_append(headers, userAgentLine) }
            if attempt > 1 { headers = curl_slist_append(headers, "X-Imgbench-Attempt: \(attempt)") }
            if client > 0 { headers = curl_slist_append(headers, "X-Imgbench-Client: \(client)") }
            if let resumeFrom {
                headers = curl_slist_append(headers, "Range: bytes=\(resumeFrom.bytes.count)-")
                headers = curl_slist_append(headers, "If-Range: \(resumeFrom.validator)")
            }
            headersAttempt = resumeFrom == nil ? attempt : 0
            ib_curl_easy_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
        }
        ib_curl_easy_set_pointer(handle, CURLOPT_WRITEDATA, context)
        ib_curl_easy_set_pointer(handle, CURLOPT_HEADERDATA, context)
        ib_curl_easy_set_pointer(handle, CURLOPT_XFERINFODATA, context)
    }

    /// The last response's header `name` (its first value), if it had one.
    func responseHeader(_ name: String) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK, let value = header?.pointee.value else { return nil }
        return String(cString: value)
    }

    /// True once the transfer has received nothing for the stall timeout (from its start, or from
    /// its last byte); the transport then aborts it, and `finish` calls it a timeout.
    func isStalled(now: UInt64 = MonotonicClock().now()) -> Bool {
        guard let transfer else { return false }
        if now &- transfer.lastActivity > UInt64(limits.stallMilliseconds) * 1_000_000 { transfer.stalled = true }
        // `--timeout` where curl does not keep it: the whole transfer, as CURLOPT_TIMEOUT_MS.
        if !curlTimesOut && now &- transfer.startedAt > UInt64(limits.timeoutMilliseconds) * 1_000_000 { transfer.stalled = true }
        return transfer.stalled
    }

    /// The whole body a cancelled transfer's headers promised: a 206's Content-Range total, else
    /// its Content-Length; none past --max-bytes (such a body could never have been downloaded,
    /// so it saved nothing, and a peer's 2^63 − 1 must not reach the run's sums).
    static func cancelledSize(rangeTotal: Int?, contentLength: Int, maxBytes: Int) -> Int? {
        let size = rangeTotal ?? (contentLength >= 0 ? Int(contentLength) : nil)
        return size.flatMap { $0 <= maxBytes ? $0 : nil }
    }

    /// What the finished transfer amounts to, given curl's result code.
    func finish(_ code: CURLcode) -> Result<FetchResult, FetchError> {
        guard let transfer else { return .failure(.connection("no transfer was prepared")) }
        // The callbacks' pointer goes before the transfer does: a callback curl makes later (a
        // connection closed when the handle is reused) finds nil, not freed memory.
        for option in [CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_XFERINFODATA] { ib_curl_easy_set_pointer(handle, option, nil) }
        self.transfer = nil
        let connection = wire?.record(handle: handle, body: transfer.received)
        if transfer.token.isCancelled {
            transfer.keepPartial()
            // What the headers promised, when they came: the size a cancelled image would have cost
            // (a 206's the rest only: the whole file's is in its Content-Range).
            var announced: curl_off_t = -1
            ib_curl_easy_get_offset(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced)
            let size = Self.cancelledSize(rangeTotal: transfer.resume?.status == 206 ? transfer.resume?.rangeTotal : nil,
                                          contentLength: announced, maxBytes: limits.maxBytes)
            return .failure(.cancelled(received: transfer.received, announced: size))
        }
        var partial = PartialTransfer(bytes: transfer.received,
                                      timeToFirstByte: transfer.firstByteAt.map { $0 - min($0, transfer.startedAt) })
        partial.connection = connection
        if transfer.stalled { return .failure(.timeout(partial)) }
        if transfer.resume?.mismatched == true {
            return .failure(.connection("the server's Content-Range does not continue the kept bytes", partial))
        }
        guard code == CURLE_OK else {
            if transfer.tooLarge || code == CURLE_FILESIZE_EXCEEDED { return .failure(.tooLarge(limit: limits.maxBytes)) }
            return .failure(code == CURLE_OPERATION_TIMEDOUT
                            ? .timeout(partial) : .connection(String(cString: curl_easy_strerror(code)), partial))
        }
        // A peer that closed inside the headers is a broken connection, not an empty image.
        guard transfer.headersComplete else { return .failure(.connection("the connection closed inside the response headers", partial)) }
        var status = 0
        ib_curl_easy_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard (200..<300).contains(status) else { return .failure(.httpStatus(status, partial)) }
        var firstByte: curl_off_t = 0, total: curl_off_t = 0
        ib_curl_easy_get_offset(handle, CURLINFO_STARTTRANSFER_TIME_T, &firstByte)
        ib_curl_easy_get_offset(handle, CURLINFO_TOTAL_TIME_T, &total)
        var result = FetchResult(bytes: transfer.body, size: transfer.received, timeToFirstByte: UInt64(firstByte) * 1_000,
                                 transfer: UInt64(max(0, total - firstByte)) * 1_000)
        result.connection = connection
        // A resumed request whose answer had no body at all joined nothing to the kept bytes.
        if transfer.resume?.from != nil && !transfer.bodyBegun { transfer.resume?.refused = true }
        if let resume = transfer.resume, let from = resume.from {
            (result.resumedBytes, result.resumeRefused) = resume.refused ? (0, true) : (from.bytes.count, false)
        }
        return .success(result)
    }
}

// Returning fewer bytes than offered aborts the transfer (CURLE_WRITE_ERROR): the fastest way
// to stop a body that is still arriving.
private func curlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                       _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context)._withUnsafeGuaranteedRef { written(data, size * count, to: $0) }
}

private func written(_ data: UnsafeMutablePointer<CChar>?, _ length: Int, to transfer: CurlTransfer) -> Int {
    if transfer.token.isCancelled { return 0 }
    if transfer.received + length > transfer.maxBytes {
        transfer.tooLarge = true
        return 0
    }
    if !transfer.bodyBegun && !transfer.beginBody() { return 0 }
    transfer.received += length
    if transfer.keepsBody { transfer.append(UnsafeRawBufferPointer(start: data, count: length)) }
    transfer.lastActivity = MonotonicClock().now()
    transfer.observer?.bodyGrew(transfer.body)
    return length
}

/// Whether a header line is a status line ("HTTP/…"), and whether it is the blank line that ends
/// a response's headers: a few byte compares, where the generic `starts(with:)` and `allSatisfy`
/// took some 80 instructions a line, ten lines a response.
private func isStatusLine(_ line: UnsafePointer<UInt8>, _ length: Int) -> Bool {
    length >= 5 && line[0] == 0x48 && line[1] == 0x54 && line[2] == 0x54 && line[3] == 0x50 && line[4] == 0x2F
}

private func isBlankLine(_ line: UnsafePointer<UInt8>, _ length: Int) -> Bool {
    func isEnd(_ byte: UInt8) -> Bool { byte == 13 || byte == 10 }
    return length == 0 || (length == 1 && isEnd(line[0])) || (length == 2 && isEnd(line[0]) && isEnd(line[1]))
}

// Each header line, the status line first; a blank line ends a response's headers.
private func curlHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                        _ context: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let context, let data else { return length }
    let line = UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self)
    // Borrowed, not retained (as in the other callbacks): curl calls this once per header line,
    // ten a response, and the transfer outlives every call (its handle keeps it until `finish`).
    Unmanaged<CurlTransfer>.fromOpaque(context)._withUnsafeGuaranteedRef { transfer in
        if isStatusLine(line, length) { (transfer.headersComplete, transfer.bodyBegun) = (false, false) }
        if transfer.resume != nil {
            transfer.resume?.read(headerLine: String(decoding: UnsafeRawBufferPointer(start: line, count: length), as: UTF8.self))
        }
        if isBlankLine(line, length) { transfer.headersComplete = true }
        // Each line is activity: a server trickling its headers is slow, not stalled.
        transfer.lastActivity = MonotonicClock().now()
        if transfer.firstByteAt == nil { transfer.firstByteAt = transfer.lastActivity }
    }
    return length
}

// Non-zero aborts (CURLE_ABORTED_BY_CALLBACK); this is what stops a transfer still waiting for
// its first byte.
private func curlProgress(_ context: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t,
                          _ downloaded: curl_off_t, _ uploadTotal: curl_off_t, _ uploaded: curl_off_t) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.token.isCancelled ? 1 : 0 }
}

/// curl_global_init must run once before any thread uses curl.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    static func initialize() { _ = initialized }

    /// Whether the environment names a proxy curl would use for http or https (or one it would
    /// ignore: then curl's own rules decide, as without this check).
    static let environmentNamesProxy: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"].contains { environment[$0] != nil }
    }()
}
