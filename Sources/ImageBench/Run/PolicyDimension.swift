/// A policy a run can vary: given as a list (`--cancel none,offscreen`, `--prefetch 0,10`,
/// `--memory-cache-mb 16,64`), each value is a dimension of the matrix, crossed with strategies,
/// limits and formats. Every cell sees the same trace, feed and network draws, so two cells that
/// differ only in one policy measure that policy's effect (`Effects`). One entry per policy: its
/// flag, how an item reads and prints, and where it lands in `RunSettings`.
public enum PolicyDimension: String, Sendable, Codable, CaseIterable, Comparable {
    case cancel
    case prefetch
    case memoryCacheMB = "memory_cache_mb"

    public var flag: String {
        switch self {
        case .cancel: "--cancel"
        case .prefetch: "--prefetch"
        case .memoryCacheMB: "--memory-cache-mb"
        }
    }

    /// How a cell's name shows the value: `cancel=none`, `prefetch=10`, `memory-cache=16MB`.
    public func label(_ value: String) -> String {
        switch self {
        case .cancel: "cancel=\(value)"
        case .prefetch: "prefetch=\(value)"
        case .memoryCacheMB: "memory-cache=\(value)MB"
        }
    }

    /// One item of the flag's list, checked and in its canonical form (`010` reads as `10`).
    public func canonical(_ text: String) throws(PlanError) -> String {
        switch self {
        case .cancel:
            guard let policy = CancelPolicy(rawValue: text) else {
                throw PlanError("--cancel: unknown value '\(text)' (valid: \(CancelPolicy.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return policy.rawValue
        case .prefetch:
            guard let rows = Int(text) else { throw PlanError("--prefetch: '\(text)' is not a whole number") }
            return String(try FlagRanges.check(rows, in: FlagRanges.prefetch, "--prefetch"))
        case .memoryCacheMB:
            guard let megabytes = Int(text) else { throw PlanError("--memory-cache-mb: '\(text)' is not a whole number") }
            return String(try FlagRanges.check(megabytes, in: FlagRanges.memoryCacheMB, "--memory-cache-mb"))
        }
    }

    /// Sets a canonical value in the settings.
    public func apply(_ value: String, to settings: inout RunSettings) {
        switch self {
        case .cancel: settings.cancelPolicy = CancelPolicy(rawValue: value) ?? settings.cancelPolicy
        case .prefetch: settings.prefetch = Int(value) ?? settings.prefetch
        case .memoryCacheMB: settings.memoryCacheBytes = (Int(value) ?? settings.memoryCacheBytes / 1_000_000) * 1_000_000
        }
    }

    /// The settings' value, in the canonical form.
    public func value(of settings: RunSettings) -> String {
        switch self {
        case .cancel: settings.cancelPolicy.rawValue
        case .prefetch: String(settings.prefetch)
        case .memoryCacheMB: String(settings.memoryCacheBytes / 1_000_000)
        }
    }

    /// A run's value, from its summary (summary.csv's column).
    public func value(of summary: RunSummary) -> String {
        switch self {
        case .cancel: summary.cancel
        case .prefetch: String(summary.prefetch)
        case .memoryCacheMB: String(summary.memoryCacheMb)
        }
    }

    public static func < (a: PolicyDimension, b: PolicyDimension) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A policy given as a list of two or more values: a dimension of the run's matrix.
public struct PolicyVariation: Sendable, Equatable, Codable {
    public let dimension: PolicyDimension
    /// Canonical values, in the order given; the first is what the others are compared with.
    public let values: [String]

    public init(dimension: PolicyDimension, values: [String]) {
        self.dimension = dimension
        self.values = values
    }
}

/// A cell's values of the varied policies (empty when nothing varies).
public struct PolicyVariant: Sendable, Hashable {
    public var values: [PolicyDimension: String] = [:]

    public init(_ values: [PolicyDimension: String] = [:]) { self.values = values }

    /// " cancel=none prefetch=10", in the dimensions' order; empty when nothing varies.
    public var suffix: String {
        values.keys.sorted().map { " " + $0.label(values[$0]!) }.joined()
    }

    /// `settings` with these values.
    public func applied(to settings: RunSettings) -> RunSettings {
        var settings = settings
        for (dimension, value) in values { dimension.apply(value, to: &settings) }
        return settings
    }

    /// This variant with one dimension at another value: the counterfactual cell.
    public func with(_ dimension: PolicyDimension, _ value: String) -> PolicyVariant {
        var copy = self
        copy.values[dimension] = value
        return copy
    }
}
