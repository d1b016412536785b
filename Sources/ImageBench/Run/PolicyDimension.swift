/// A policy a run can vary: a run flag whose catalog entry has a `RunFlag.Dimension`. Given as a
/// list (`--cancel none,offscreen`, `--transport blocking,multi`), each value is a dimension of
/// the matrix, crossed with strategies, limits and formats. Every cell sees the same trace, feed
/// and network draws, so two cells that differ only in one policy measure that policy's effect
/// (`Effects`). Named by its summary.csv column; everything else comes from its catalog entry, so
/// a new dimension is a new entry, not a new case here.
struct PolicyDimension: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// summary.csv's column: `cancel`, `prefetch`, `memory_cache_mb`.
    let rawValue: String
    /// The catalog entry, found when the dimension is made (an unknown name is no dimension).
    let entry: RunFlag
    let dimension: RunFlag.Dimension

    init?(rawValue: String) {
        guard let entry = RunFlag.catalog.first(where: { $0.dimension?.column == rawValue }), let dimension = entry.dimension else { return nil }
        self.rawValue = rawValue
        self.entry = entry
        self.dimension = dimension
    }

    /// A dimension the catalog declares (for the names code refers to).
    private static func named(_ column: String) -> PolicyDimension {
        guard let dimension = PolicyDimension(rawValue: column) else { preconditionFailure("no run flag varies \(column)") }
        return dimension
    }

    static let cancel = named("cancel")
    static let prefetch = named("prefetch")
    static let memoryCacheMB = named("memory_cache_mb")

    /// Every flag that can vary, in the catalog's order (the order of a cell's name).
    static let allCases: [PolicyDimension] = RunFlag.catalog.compactMap { $0.dimension.flatMap { PolicyDimension(rawValue: $0.column) } }

    /// Each dimension's place in `allCases` (cell names sort by it, often).
    private static let order = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1.rawValue, $0) })

    var flag: String { entry.flag }
    var description: String { rawValue }

    /// How a cell's name shows the value: `cancel=none`, `prefetch=10`, `memory-cache=16MB`.
    func label(_ value: String) -> String { "\(dimension.label)=\(value)\(dimension.unit)" }

    /// One item of the flag's list, checked and in its canonical form (`010` reads as `10`).
    func canonical(_ text: String) throws(PlanError) -> String { try dimension.canonical(text) }

    /// Sets a canonical value in the settings.
    func apply(_ value: String, to settings: inout RunSettings) { dimension.apply(value, &settings) }

    /// The settings' value, in the canonical form.
    func value(of settings: RunSettings) -> String { dimension.value(settings) }

    /// A run's value, from its summary (summary.csv's column of the same name).
    func value(of summary: RunSummary) -> String {
        Metric.named(rawValue).map { $0.value(of: summary).formatted } ?? ""
    }

    /// requests.csv's column: there `cancel` is the request's own cancellation, so the policy is `cancel_policy`.
    var requestsColumn: String { rawValue == "cancel" ? "cancel_policy" : rawValue }

    static func < (a: PolicyDimension, b: PolicyDimension) -> Bool {
        (order[a.rawValue] ?? 0) < (order[b.rawValue] ?? 0)
    }

    static func == (a: PolicyDimension, b: PolicyDimension) -> Bool { a.rawValue == b.rawValue }
    func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let dimension = PolicyDimension(rawValue: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(name)' is no setting a run can vary")
        }
        self = dimension
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A policy given as a list of two or more values: a dimension of the run's matrix.
struct PolicyVariation: Sendable, Equatable, Codable {
    let dimension: PolicyDimension
    /// Canonical values, in the order given; the first is what the others are compared with.
    let values: [String]

    init(dimension: PolicyDimension, values: [String]) {
        self.dimension = dimension
        self.values = values
    }
}

/// A cell's values of the varied policies (empty when nothing varies).
struct PolicyVariant: Sendable, Hashable {
    var values: [PolicyDimension: String] = [:]

    init(_ values: [PolicyDimension: String] = [:]) { self.values = values }

    /// " cancel=none prefetch=10", in the dimensions' order; empty when nothing varies.
    var suffix: String {
        values.keys.sorted().map { " " + $0.label(values[$0]!) }.joined()
    }

    /// `settings` with these values.
    func applied(to settings: RunSettings) -> RunSettings {
        var settings = settings
        for (dimension, value) in values { dimension.apply(value, to: &settings) }
        return settings
    }

    /// This variant with one dimension at another value: the counterfactual cell.
    func with(_ dimension: PolicyDimension, _ value: String) -> PolicyVariant {
        var copy = self
        copy.values[dimension] = value
        return copy
    }
}
