/// A cell of results read back from a directory (summary.csv, clients.csv, histograms.json,
/// requests.csv): what tells its runs apart from another cell's, as values rather than as the
/// label tables print. Two directories' cells pair when these are equal, which is when their
/// labels are ("threads ×5", "threads ×5 avif", "threads ×5 cancel=none").
public struct ResultCell: Sendable, Hashable {
    /// A strategy as a file records it: one this imgbench runs, or the name of one it does not
    /// know (a file from another version), which can still be compared and named, never run.
    enum Strategy: Sendable, Hashable {
        case known(StrategyKind)
        case other(String)

        init(_ name: String) {
            self = StrategyKind(rawValue: name).map(Strategy.known) ?? .other(name)
        }

        var name: String {
            switch self {
            case .known(let kind): kind.rawValue
            case .other(let name): name
            }
        }

        /// The strategy to run again (the gate's re-runs, a merge's cells); nil for one unknown here.
        var kind: StrategyKind? {
            if case .known(let kind) = self { kind } else { nil }
        }
    }

    let strategy: Strategy
    let concurrency: Int
    /// The corpus format where it names the cell (`avif`); "" for the default mix and for a
    /// source without one, so results written before --formats pair with today's.
    let format: String
    /// The values of the policies that vary among the cells read together.
    let variant: PolicyVariant

    init(strategy: String, concurrency: Int, format: String = "", variant: PolicyVariant = PolicyVariant()) {
        self.strategy = Strategy(strategy)
        self.concurrency = concurrency
        self.format = CellName.names(format) ? format : ""
        self.variant = variant
    }

    /// The cell as reports name it, the same as `RunCell.name` for the cell that ran.
    var name: String {
        CellName.of(strategy: strategy.name, concurrency: concurrency, format: format) + variant.suffix
    }
}

extension ResultCell {
    /// The cell of a run's summary (a row of clients.csv), by the values of the `varied` policies.
    init(_ summary: RunSummary, varied: [PolicyDimension]) {
        self.init(strategy: summary.strategy, concurrency: summary.concurrency, format: summary.format,
                  variant: PolicyVariant(varied.reduce(into: [:]) { $0[$1] = $1.value(of: summary) }))
    }
}
