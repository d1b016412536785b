/// Every number a user can type into `imgbench run`, with the range it must fall in: checked by
/// `RunOptions` before a value is scaled (MB to bytes, seconds to ms, where a huge number would
/// overflow) and by `BenchmarkPlan.validate()` on plans read back; `--help` shows them. The
/// ranges are what one process can do on one machine, not what a type can hold.
public enum FlagRanges {
    /// A million rows scroll for about two hours and keep some 300 MB of request records.
    static let rows = 1...1_000_000
    static let concurrency = 1...1_000
    static let fps = 1...240
    static let memoryCacheMB = 0...65_536
    static let diskCacheMB = 1...1_048_576
    static let prefetch = 0...1_000
    static let stageConcurrency = 1...64
    static let repeats = 1...1_000
    static let warmup = 0...100
    static let warmupSeconds = 0.0...60
    /// `--host-delay-ms`: what one request costs a host, far above any measured (0.6 ms here).
    static let hostDelayMs = 0.0...100
    /// `--budget`: at least a round of a short trace, at most a day.
    static let budgetSeconds = 10.0...86_400
    /// Distinct images of a `--source` feed (URLs only).
    static let images = 1...1_000_000
    /// The embedded corpus is generated and held in memory: about 27 kB an image, 270 MB at most.
    public static let embeddedImages = 1...10_000
    static let timeoutSeconds = 0.001...3_600
    /// `--user-agent`'s longest text (bytes): browsers' run to about 200.
    static let userAgentLength = 256
    static let stallTimeoutSeconds = 1...3_600
    static let retries = 0...10
    /// `--max-error-rate`, a share of HTTP requests: 0 (any failure) to 1 (rank whatever fails).
    static let maxErrorRate = 0.0...1
    static let maxPixels = 1...1_000_000_000
    /// `--max-decode-mb`: one decode's memory, in MB (10^6 bytes).
    static let maxDecodeMB = 1...4_096
    static let maxBytes = 1...1_073_741_824
    /// Simulated users in one process, each a thread with its own memory cache and trace; more
    /// go to other processes (`--shard`).
    static let clients = 1...1_000
    /// `--duration` and `--stages`: up to a day.
    static let loadSeconds = 0.1...86_400
    /// `--arrival-rate`, users a second; with `--duration` at most `sessions` users in all (each
    /// keeps its request records to the end).
    static let arrivalRate = 0.001...1_000
    static let sessions = 1...10_000
    /// `imgbench serve`: seconds a connection may idle or take over a request, and open connections at most.
    public static let requestTimeout = 0.1...3_600
    public static let maxConnections = 1...1_000_000
    /// `--metrics-address`'s port: a fixed one, for Prometheus's configuration to name (no 0).
    static let metricsPort = 1...65_535

    /// The value, or an error naming the flag and its range.
    @discardableResult
    public static func check<T: Comparable>(_ value: T, in range: ClosedRange<T>, _ flag: String) throws(PlanError) -> T {
        guard range.contains(value) else {
            throw PlanError("\(flag) must be between \(text(range.lowerBound)) and \(text(range.upperBound)) (got \(text(value)))")
        }
        return value
    }

    /// "0.001", "60", "1000000": whole numbers without a decimal point.
    static func text<T>(_ value: T) -> String {
        if let number = value as? Double { return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(format: "%g", number) }
        return "\(value)"
    }

    /// "(1 to 1000000)", for help texts.
    public static func help<T>(_ range: ClosedRange<T>) -> String {
        "(\(text(range.lowerBound)) to \(text(range.upperBound)))"
    }
}
