/// What had arrived when a fetch failed: body bytes (they were downloaded, and count), and when
/// the response began, if it did (a true time to first byte, not the whole failed fetch).
struct PartialTransfer: Sendable, Hashable {
    var bytes = 0
    var timeToFirstByte: UInt64?
    /// The connection it went over, where curl reported one.
    var connection: ConnectionFacts?

    init(bytes: Int = 0, timeToFirstByte: UInt64? = nil) {
        self.bytes = bytes
        self.timeToFirstByte = timeToFirstByte
    }

    static let none = PartialTransfer()
}

/// Why a fetch produced no image bytes. Each case is a class of error counted in reports.
/// Two errors are equal when their kind and reason are, whatever had arrived before them.
enum FetchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The load was cancelled; `received` bytes had arrived by then.
    /// `announced`: the body size the response's Content-Length gave, if its headers arrived.
    case cancelled(received: Int, announced: Int? = nil)
    /// The server answered with a non-2xx status.
    case httpStatus(Int, PartialTransfer = .none)
    /// `--timeout` elapsed, or the transfer was silent for `--stall-timeout`.
    case timeout(PartialTransfer = .none)
    /// Could not connect, or the connection broke before the body was complete.
    case connection(String, PartialTransfer = .none)
    /// The body exceeded `--max-bytes`.
    case tooLarge(limit: Int)

    /// What had arrived before the failure.
    var partial: PartialTransfer {
        switch self {
        case .cancelled(let received, _): PartialTransfer(bytes: received)
        case .httpStatus(_, let partial), .timeout(let partial), .connection(_, let partial): partial
        case .tooLarge: .none
        }
    }

    var description: String {
        let after = partial.bytes > 0 ? " after \(partial.bytes) bytes" : ""
        return switch self {
        case .cancelled(let received, _): "cancelled after \(received) bytes"
        case .httpStatus(let status, _): "HTTP status \(status)"
        case .timeout: "timed out" + after
        case .connection(let reason, _): "connection: \(reason)" + after
        case .tooLarge(let limit): "body larger than --max-bytes \(limit)"
        }
    }

    static func == (a: FetchError, b: FetchError) -> Bool {
        switch (a, b) {
        case let (.cancelled(x, y), .cancelled(u, v)): x == u && y == v
        case let (.httpStatus(x, _), .httpStatus(y, _)): x == y
        case (.timeout, .timeout): true
        case let (.connection(x, _), .connection(y, _)): x == y
        case let (.tooLarge(x), .tooLarge(y)): x == y
        default: false
        }
    }
}

/// The bytes of one image and how long the network took to deliver them.
struct FetchResult: Sendable {
    /// The body; empty when the transport was told to discard it (`--no-decode`: nothing reads it).
    var bytes: [UInt8]
    /// The body's size in bytes, kept or not.
    var size: Int
    /// From the start of the request to the first byte of the response.
    var timeToFirstByte: UInt64
    /// From the first byte to the last.
    var transfer: UInt64
    /// `--resume`: the body's first bytes came from a cancelled transfer kept for it (a 206
    /// answered the rest); `size` counts only what this fetch received.
    var resumedBytes = 0
    /// `--resume`: the server answered the range request with the whole body.
    var resumeRefused = false
    /// The connection it came over (the transports of curl say; others leave nil).
    var connection: ConnectionFacts?

    init(bytes: [UInt8], size: Int? = nil, timeToFirstByte: UInt64, transfer: UInt64) {
        self.bytes = bytes
        self.size = size ?? bytes.count
        self.timeToFirstByte = timeToFirstByte
        self.transfer = transfer
    }
}

/// Limits that protect a fetch from a server that stalls or sends too much, and how it connects
/// and names itself: the HTTP version asked for, the certificate authority trusted, the User-Agent.
struct FetchLimits: Sendable, Equatable, Codable {
    /// Whole-request time limit (`--timeout`), 10 s by default.
    var timeoutMilliseconds: Int
    /// The largest body accepted (`--max-bytes`), 50 MB by default.
    var maxBytes: Int
    /// A transfer that receives nothing for this long fails as a timeout (`--stall-timeout`, whole
    /// seconds), 5 s by default; the transports find it within 100 ms.
    var stallMilliseconds: Int
    /// `--http`; nil: HTTP/1.1 (and plans of imgbench 0.7 and earlier, which had no such key).
    var http: HTTPVersion?
    /// `--ca-file`: a PEM file of certificate authorities trusted for HTTPS instead of the
    /// system's (curl's --cacert); certificates are always verified.
    var caFile: String?
    /// Whether each request names its simulated user (`X-Imgbench-Client`), for imgbench's own
    /// server, which gives each user a link of its own. A run against any other server sends
    /// nothing: no server of its own reads it, and curl spends about 3,000 instructions a request
    /// scanning and formatting one more header (a tenth of what a load test's user adds to
    /// libcurl's floor). Not in the plan: the run learns it from the source's answer.
    var namesUsers = true
    /// `--user-agent`: what each request names itself; nil, imgbench and its version; empty, no
    /// User-Agent header at all (curl sends none of its own).
    var userAgent: String?
    /// What a request names itself by default: imgbench and its version.
    static let defaultUserAgent = "imgbench/\(ImageBenchVersion.current)"

    /// Why `text` cannot be sent as a User-Agent (nil: it can), for the flag and for a plan read
    /// back from a file. A line break would end the header and start another: refused, not
    /// escaped; spaces alone curl would drop without saying.
    static func userAgentRefusal(_ text: String) -> String? {
        guard text.utf8.count <= FlagRanges.userAgentLength, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            return "printable ASCII only, at most \(FlagRanges.userAgentLength) characters"
        }
        guard text.isEmpty || text.contains(where: { $0 != " " }) else { return "only spaces (\"\" sends no User-Agent)" }
        return nil
    }

    private enum CodingKeys: String, CodingKey { case timeoutMilliseconds, maxBytes, stallMilliseconds, http, caFile, userAgent }

    var httpVersion: HTTPVersion { http ?? .http1_1 }

    init(timeoutMilliseconds: Int = 10_000, maxBytes: Int = 50 * 1024 * 1024, stallMilliseconds: Int = 5_000) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maxBytes = maxBytes
        self.stallMilliseconds = stallMilliseconds
    }
}
