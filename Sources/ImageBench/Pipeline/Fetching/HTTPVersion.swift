import CCurl

/// The HTTP version a run's client asks for (`--http`): HTTP/1.1, a connection per load in flight,
/// or HTTP/2, as phones have spoken to CDNs since iOS 9 and OkHttp 3: one connection per user and
/// host, loads multiplexed on it as streams, a cancel resetting its stream (RST_STREAM) while the
/// connection stays. HTTP/2 is asked for by ALPN over TLS and by prior knowledge in clear text (h2c).
enum HTTPVersion: String, Sendable, Codable, CaseIterable {
    case http1_1 = "1.1"
    case http2 = "2"

    /// What curl is told: HTTP/2 "by prior knowledge" is h2c for http:// and ALPN h2 for https://
    /// (curl negotiates HTTPS's version in the TLS handshake whatever this says).
    var curlOption: Int {
        switch self {
        case .http1_1: Int(CURL_HTTP_VERSION_1_1)
        case .http2: Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
    }

    /// The version curl says a transfer spoke (CURLINFO_HTTP_VERSION), nil for none (not sent).
    static func negotiated(_ curlValue: Int) -> String? {
        switch curlValue {
        case Int(CURL_HTTP_VERSION_1_0): "1.0"
        case Int(CURL_HTTP_VERSION_1_1): "1.1"
        case Int(CURL_HTTP_VERSION_2_0): "2"
        case Int(CURL_HTTP_VERSION_3): "3"
        default: nil
        }
    }
}

/// The connection one transfer used, as curl reports it: the protocol spoken, whether the
/// transfer opened the connection, and what opening it cost (requests.csv's `protocol`,
/// `new_connection`, `connect_ms`, `tls_ms`).
struct ConnectionFacts: Sendable, Hashable {
    /// "1.1", "2"; nil when no response came (refused, cancelled before an answer).
    var protocolVersion: String?
    var opened = false
    /// TCP connect of a connection this transfer opened (name lookup excluded), ns.
    var connect: UInt64 = 0
    /// Its TLS handshake (curl's APPCONNECT less CONNECT), ns; 0 in clear text.
    var tlsHandshake: UInt64 = 0
}
