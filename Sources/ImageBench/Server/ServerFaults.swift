/// Faults the embedded server injects (`--faults 'error=2%,reset=1%,stall=1%,truncate=1%'`), so a
/// run can show how a pipeline copes with a bad server:
/// - `error`: a 500 or 503 status with a short text body;
/// - `reset`: the headers and half the body, then the connection is reset (RST);
/// - `stall`: the headers and half the body, then nothing more while the connection stays open;
/// - `truncate`: a complete, well-formed response whose body is only the first half of the file.
///
/// Which request is hit is deterministic: a hash of the seed, the path and the request's number
/// among that user's requests of that path (retries included). A rate is therefore a share of
/// requests, not of paths (a popular path is not hit on every request), a retry draws again, and
/// every run of a benchmark, which restarts the numbers, meets the same faults on the same
/// requests.
public struct ServerFaults: Sendable, Equatable, CustomStringConvertible {
    enum Kind: String, Sendable, CaseIterable {
        case error, reset, stall, truncate
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Probability of each kind, each in 0...1, summing to at most 1.
    private(set) var rates: [Kind: Double] = [:]

    public static let none = ServerFaults()

    private init() {}

    public init(parsing text: String) throws(ParseError) {
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            let kinds = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            guard pair.count == 2, let kind = Kind(rawValue: pair[0]) else {
                throw ParseError(description: "--faults '\(part)': write kind=N% (kinds: \(kinds))")
            }
            guard pair[1].hasSuffix("%"), let percent = Double(pair[1].dropLast()), (0...100).contains(percent) else {
                throw ParseError(description: "--faults '\(part)': '\(pair[1])' is not a percentage between 0% and 100%")
            }
            rates[kind] = percent / 100
        }
        guard rates.values.reduce(0, +) <= 1 else {
            throw ParseError(description: "--faults '\(text)': the rates add up to more than 100%")
        }
    }

    public var isEmpty: Bool { rates.values.allSatisfy { $0 == 0 } }

    /// The share of requests given some fault.
    var total: Double { rates.values.reduce(0, +) }

    public var description: String {
        isEmpty ? "none" : Kind.allCases.compactMap { kind in
            rates[kind].map { "\(kind.rawValue)=\(Format.compact($0 * 100))%" }
        }.joined(separator: ",")
    }

    /// The fault for the `request`-th request of `path`, if any.
    func fault(path: String, request: Int, seed: UInt64) -> Kind? {
        guard !isEmpty else { return nil }
        let draw = StableHash.unit(seed: seed ^ 0xFA17, key: "\(path)#\(request)")
        var edge = 0.0
        for kind in Kind.allCases {
            edge += rates[kind] ?? 0
            if draw < edge { return kind }
        }
        return nil
    }
}
