/// Why a fetch produced no image bytes. Each case is a class of error counted in reports.
public enum FetchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The load was cancelled; `received` bytes had arrived by then.
    /// `announced`: the body size the response's Content-Length gave, if its headers arrived.
    case cancelled(received: Int, announced: Int? = nil)
    /// The server answered with a non-2xx status.
    case httpStatus(Int)
    /// `--timeout` elapsed.
    case timeout
    /// Could not connect, or the connection broke before the body was complete.
    case connection(String)
    /// The body exceeded `--max-bytes`.
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .cancelled(let received, _): "cancelled after \(received) bytes"
        case .httpStatus(let status): "HTTP status \(status)"
        case .timeout: "timed out"
        case .connection(let reason): "connection: \(reason)"
        case .tooLarge(let limit): "body larger than --max-bytes \(limit)"
        }
    }
}

/// The bytes of one image and how long the network took to deliver them.
public struct FetchResult: Sendable {
    public var bytes: [UInt8]
    /// From the start of the request to the first byte of the response.
    public var timeToFirstByte: UInt64
    /// From the first byte to the last.
    public var transfer: UInt64
}

/// Limits that protect a fetch from a server that stalls or sends too much.
public struct FetchLimits: Sendable, Equatable, Codable {
    /// Whole-request time limit (`--timeout`), 10 s by default.
    public var timeoutMilliseconds: Int
    /// The largest body accepted (`--max-bytes`), 50 MB by default.
    public var maxBytes: Int
    /// A transfer that receives nothing for this long fails as a timeout (`--stall-timeout`, whole
    /// seconds), 5 s by default; the transports find it within 100 ms.
    public var stallMilliseconds: Int

    public init(timeoutMilliseconds: Int = 10_000, maxBytes: Int = 50 * 1024 * 1024, stallMilliseconds: Int = 5_000) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maxBytes = maxBytes
        self.stallMilliseconds = stallMilliseconds
    }
}
