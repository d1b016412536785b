/// `--metrics-address HOST:PORT`: where the live metrics are served. IPv6 hosts in brackets
/// (`[::1]:9464`), as URLs write them. The host is checked when it is bound, before the run.
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    init(parsing text: String) throws(PlanError) {
        let flag = "--metrics-address"
        guard let colon = text.lastIndex(of: ":") else { throw PlanError("\(flag): '\(text)' is not HOST:PORT (like 127.0.0.1:9464)") }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // An unbracketed IPv6 address would split at its own last colon.
        guard !host.isEmpty, !host.contains(":") || text.hasPrefix("[") else {
            throw PlanError("\(flag): '\(text)' is not HOST:PORT (like 127.0.0.1:9464, or [::1]:9464)")
        }
        self.init(host: host, port: try RunFlag.whole(String(text[text.index(after: colon)...]), "\(flag)'s port", in: FlagRanges.metricsPort))
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Where Prometheus scrapes.
    public var url: String { "http://\(description)/metrics" }
}
