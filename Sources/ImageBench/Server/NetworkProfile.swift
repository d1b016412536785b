import Foundation

/// How the embedded server shapes its responses: a per-request latency with deterministic
/// per-URL jitter (time to first byte) and a link bandwidth shared by all of a client's
/// connections, as a phone's radio is shared.
public struct NetworkProfile: Sendable, Equatable, Codable, CustomStringConvertible {
    var name: String
    /// Added before the response starts, in milliseconds.
    var latencyMilliseconds: Double
    /// Each URL's latency is shifted by a fixed amount in ±jitter, chosen by the seed and the URL.
    var jitterMilliseconds: Double
    /// Bytes per second on the shared link; nil is unlimited.
    var bandwidthBytesPerSecond: Double?

    init(name: String, latencyMilliseconds: Double, jitterMilliseconds: Double,
                bandwidthBytesPerSecond: Double?) {
        self.name = name
        self.latencyMilliseconds = latencyMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.bandwidthBytesPerSecond = bandwidthBytesPerSecond
    }

    /// The named presets. Numbers are typical medians for each kind of network (latency as
    /// time to first byte of a small response, bandwidth as sustained download):
    /// - loopback: no shaping at all
    /// - wifi: 30 ms ± 10 ms, 6 MB/s (about 50 Mbit/s)
    /// - lte: 60 ms ± 20 ms, 2.5 MB/s (20 Mbit/s)
    /// - 3g: 150 ms ± 50 ms, 200 kB/s (1.6 Mbit/s)
    /// - edge: 400 ms ± 100 ms, 30 kB/s (240 kbit/s)
    static let presets: [NetworkProfile] = [
        NetworkProfile(name: "loopback", latencyMilliseconds: 0, jitterMilliseconds: 0, bandwidthBytesPerSecond: nil),
        NetworkProfile(name: "wifi", latencyMilliseconds: 30, jitterMilliseconds: 10, bandwidthBytesPerSecond: 6_000_000),
        NetworkProfile(name: "lte", latencyMilliseconds: 60, jitterMilliseconds: 20, bandwidthBytesPerSecond: 2_500_000),
        NetworkProfile(name: "3g", latencyMilliseconds: 150, jitterMilliseconds: 50, bandwidthBytesPerSecond: 200_000),
        NetworkProfile(name: "edge", latencyMilliseconds: 400, jitterMilliseconds: 100, bandwidthBytesPerSecond: 30_000),
    ]

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// A preset name, or a spec such as `latency=80ms,jitter=20ms,bandwidth=2MB/s`.
    public init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let preset = Self.presets.first(where: { $0.name == trimmed }) {
            self = preset
            return
        }
        let names = Self.presets.map(\.name).joined(separator: ", ")
        guard trimmed.contains("=") else {
            throw ParseError(description: "unknown network profile '\(text)' (use one of \(names), or a spec like latency=80ms,jitter=20ms,bandwidth=2MB/s)")
        }
        var profile = NetworkProfile(name: trimmed, latencyMilliseconds: 0, jitterMilliseconds: 0, bandwidthBytesPerSecond: nil)
        for part in trimmed.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw ParseError(description: "network spec part '\(part)' is not key=value") }
            switch pair[0] {
            case "latency": profile.latencyMilliseconds = try Self.milliseconds(pair[1], key: "latency")
            case "jitter": profile.jitterMilliseconds = try Self.milliseconds(pair[1], key: "jitter")
            case "bandwidth": profile.bandwidthBytesPerSecond = try Self.bytesPerSecond(pair[1])
            default: throw ParseError(description: "unknown network spec key '\(pair[0])' (use latency, jitter, bandwidth)")
            }
        }
        self = profile
    }

    /// The time to first byte of `key` (a URL path) under this profile, fixed by the seed.
    func latency(for key: String, seed: UInt64) -> Double {
        guard jitterMilliseconds > 0 else { return latencyMilliseconds }
        let unit = StableHash.unit(seed: seed, key: key)
        return max(0, latencyMilliseconds + jitterMilliseconds * (2 * unit - 1))
    }

    public var description: String {
        let bandwidth = bandwidthBytesPerSecond.map { String(format: "%.0f kB/s", $0 / 1000) } ?? "unlimited"
        return "\(name) (latency \(Int(latencyMilliseconds)) ms ± \(Int(jitterMilliseconds)) ms, \(bandwidth))"
    }

    private static func milliseconds(_ text: String, key: String) throws(ParseError) -> Double {
        let (number, unit) = split(text)
        let scale: Double
        switch unit {
        case "ms", "": scale = 1
        case "s": scale = 1000
        case "us", "µs": scale = 0.001
        default: throw ParseError(description: "\(key) '\(text)': unknown unit '\(unit)' (use ms or s)")
        }
        guard let value = number, value >= 0 else { throw ParseError(description: "\(key) '\(text)' is not a non-negative duration") }
        return value * scale
    }

    private static func bytesPerSecond(_ text: String) throws(ParseError) -> Double? {
        if text == "unlimited" { return nil }
        let (number, unit) = split(text)
        let scales: [String: Double] = [
            "b/s": 1, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9,
            "kbit/s": 125, "mbit/s": 125_000, "gbit/s": 125_000_000, "kbps": 125, "mbps": 125_000,
        ]
        guard let scale = scales[unit] else {
            throw ParseError(description: "bandwidth '\(text)': unknown unit '\(unit)' (use B/s, kB/s, MB/s, kbit/s, Mbit/s)")
        }
        guard let value = number, value > 0 else { throw ParseError(description: "bandwidth '\(text)' must be positive") }
        return value * scale
    }

    private static func split(_ text: String) -> (Double?, String) {
        let digits = text.prefix { $0.isNumber || $0 == "." }
        return (Double(digits), String(text.dropFirst(digits.count)).trimmingCharacters(in: .whitespaces))
    }
}
