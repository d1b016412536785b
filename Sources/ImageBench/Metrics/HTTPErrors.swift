/// What one failed HTTP request ended in: the status the server answered, or, when no status
/// came, the class of the failure (a timeout, a broken connection, a body over `--max-bytes`).
/// A cancelled transfer is neither: it did not fail, it was cut (`http_cancelled`).
enum HTTPFailure: Hashable, Sendable, Comparable, CustomStringConvertible {
    case status(Int)
    case failure(ErrorClass)

    /// Statuses kept apart: a hostile server may send any number, and each distinct one would
    /// be a key; outside HTTP's range it is counted as `http_status`.
    static let statuses = 100...599

    init?(_ error: FetchError) {
        switch error {
        case .cancelled: return nil
        case .httpStatus(let status, _): self = Self.statuses.contains(status) ? .status(status) : .failure(.httpStatus)
        case .timeout: self = .failure(.timeout)
        case .connection: self = .failure(.connection)
        case .tooLarge: self = .failure(.tooLarge)
        }
    }

    /// `404`, `timeout`: its key in `http_errors_by_status`.
    var description: String {
        switch self {
        case .status(let status): String(status)
        case .failure(let errorClass): errorClass.rawValue
        }
    }

    init?(key: String) {
        if let status = Int(key) {
            guard Self.statuses.contains(status) else { return nil }
            self = .status(status)
        } else if let errorClass = ErrorClass(rawValue: key) {
            self = .failure(errorClass)
        } else {
            return nil
        }
    }

    /// Statuses first, in order, then the classes in their declared order: the CSV's fixed order.
    static func < (a: HTTPFailure, b: HTTPFailure) -> Bool {
        switch (a, b) {
        case (.status(let x), .status(let y)): x < y
        case (.status, .failure): true
        case (.failure, .status): false
        case (.failure(let x), .failure(let y)):
            ErrorClass.allCases.firstIndex(of: x)! < ErrorClass.allCases.firstIndex(of: y)!
        }
    }
}

/// Failed HTTP requests counted by what they ended in: `404 ×8250, timeout ×3`. At most 500
/// statuses and a handful of classes, whatever a server sends.
struct HTTPErrorCounts: Sendable, Equatable {
    private(set) var counts: [HTTPFailure: Int] = [:]

    var total: Int { counts.values.reduce(0, +) }
    var isEmpty: Bool { counts.isEmpty }

    subscript(failure: HTTPFailure) -> Int { counts[failure, default: 0] }

    mutating func add(_ failure: HTTPFailure, count: Int = 1) {
        guard count > 0 else { return }
        counts[failure, default: 0] += count
    }

    /// Users and shards combined: summed per status.
    mutating func add(_ other: HTTPErrorCounts) {
        for (failure, count) in other.counts { add(failure, count: count) }
    }

    /// The commonest first (ties in key order): what a person reads.
    var ranked: [(failure: HTTPFailure, count: Int)] {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `404 ×8250, timeout ×3` (`limit`: the commonest few, then how many more kinds).
    func listing(limit: Int = 4) -> String {
        let ranked = ranked
        let shown = ranked.prefix(limit).map { "\($0.failure) ×\($0.count)" }
        let rest = ranked.count > limit ? ", and \(ranked.count - limit) more" : ""
        return shown.joined(separator: ", ") + rest
    }

    /// summary.csv's text: `404:8250;500:3;timeout:3`, in key order (so equal counts are equal text).
    var text: String {
        get { counts.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ";") }
        set { self = HTTPErrorCounts(text: newValue) ?? HTTPErrorCounts() }
    }

    init() {}

    /// Read back from summary.csv; nil when the text is not a list of `key:count`. Text from a
    /// file: a key outside the bounds or a count that is not a count is refused, not kept.
    init?(text: String) {
        for item in text.split(separator: ";", omittingEmptySubsequences: true) {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let failure = HTTPFailure(key: String(parts[0])),
                  let count = Int(parts[1]), count >= 0 else { return nil }
            counts[failure] = CheckedNumber.sum(counts[failure, default: 0], count)
        }
    }
}
