/// The classes failures are counted by in summary.csv (`errors_<class>`) and named by in
/// requests.csv.
enum ErrorClass: String, Sendable, CaseIterable, Codable {
    /// The server answered with a 4xx or 5xx status.
    case httpStatus = "http_status"
    /// No complete answer within `--timeout`, the transfer stalled, or the decode was still
    /// running `--timeout` after the fetch began.
    case timeout
    /// Refused, reset, closed early, unresolvable, too many redirects.
    case connection
    /// A body beyond `--max-bytes`, a header promising more than `--max-pixels`, or a decode that
    /// would allocate more than `--max-decode-mb`.
    case tooLarge = "too_large"
    /// Bytes that are not a decodable image: truncated, corrupt, not an image at all.
    case decode
    /// A real image in a variant imgbench does not decode (an animated WebP, a 12-bit or CMYK JPEG).
    case unsupported
}
