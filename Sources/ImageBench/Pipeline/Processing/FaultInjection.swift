import Foundation

/// A testing aid (`--inject`): slows one part of the system down on purpose, so that a gate can be
/// shown to catch a regression of known size. Never part of a real measurement.
///
/// Spec: comma-separated `latency=+20%` or `latency=+30ms` (the server's time to first byte, on
/// top of the network profile), `decode=+3ms` and `filter=+2ms` (added to every image's stage, as
/// a blocking wait on the worker, which is what slower code would cost it: `InjectedSlowdown`).
/// `cancel=running-only` breaks the cancel policy's code instead: a row that scrolls away cancels
/// its load only once it runs, and queued loads stay queued (a virtual gate must catch it: any
/// count it changes is exact there).
public struct FaultInjection: Sendable, Equatable, CustomStringConvertible {
    var latencyFactor = 1.0
    var latencyMilliseconds = 0.0
    var decodeMilliseconds = 0.0
    var filterMilliseconds = 0.0
    /// `cancel=running-only`: cancels skip loads still queued.
    var keepsQueuedLoads = false
    public let description: String

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    static let none = FaultInjection()

    private init() { description = "none" }

    public init(parsing text: String) throws(ParseError) {
        description = text
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ParseError(description: "--inject: empty; write stage=+N% or stage=+Nms, or cancel=running-only")
        }
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.first == "cancel" {
                guard pair.count == 2, pair[1] == "running-only" else {
                    throw ParseError(description: "--inject '\(part)': the cancel policy takes cancel=running-only")
                }
                keepsQueuedLoads = true
                continue
            }
            guard pair.count == 2, pair[1].hasPrefix("+") else {
                throw ParseError(description: "--inject '\(part)': write stage=+N% or stage=+Nms (stages: latency, decode, filter), or cancel=running-only")
            }
            let amount = String(pair[1].dropFirst())
            if amount.hasSuffix("%") {
                guard pair[0] == "latency", let percent = Double(amount.dropLast()), percent >= 0 else {
                    throw ParseError(description: "--inject '\(part)': a percentage applies to latency only, e.g. latency=+20%")
                }
                latencyFactor = 1 + percent / 100
                continue
            }
            guard amount.hasSuffix("ms"), let milliseconds = Double(amount.dropLast(2)), milliseconds >= 0 else {
                throw ParseError(description: "--inject '\(part)': '\(pair[1])' is not +N% or +Nms")
            }
            switch pair[0] {
            case "latency": latencyMilliseconds = milliseconds
            case "decode": decodeMilliseconds = milliseconds
            case "filter": filterMilliseconds = milliseconds
            default: throw ParseError(description: "--inject '\(part)': unknown stage '\(pair[0])' (latency, decode, filter)")
            }
        }
    }

    /// True when it slows a real stage (the network, a decoder, a filter), which a virtual run
    /// does not have; a broken policy it runs.
    var slowsStages: Bool {
        latencyFactor != 1 || latencyMilliseconds != 0 || decodeMilliseconds != 0 || filterMilliseconds != 0
    }

    /// The network profile with the injected latency.
    func applied(to profile: NetworkProfile) -> NetworkProfile {
        var shaped = profile
        shaped.latencyMilliseconds = profile.latencyMilliseconds * latencyFactor + latencyMilliseconds
        shaped.jitterMilliseconds = profile.jitterMilliseconds * latencyFactor
        return shaped
    }
}
