/// How `compare` pairs two runs: the settings a user varies on purpose (the run flags that can be
/// dimensions: `--cancel`, `--prefetch`, `--transport`, …) are named first, as what the comparison
/// is about; everything else (the trace, the seed, the feed, the network, the source) must match,
/// or the two cells did not see the same scroll and nothing pairs. Two runs of the same trace that
/// differ only in named settings are the counterfactual pair a saving is measured on.
public struct PlanPairing: Sendable, Equatable {
    /// `--cancel offscreen → none`, in the catalog's order.
    public let named: [String]
    /// What else differs (`settings.seed: 1 → 2`): the runs saw different traces or servers.
    public let unpaired: [String]

    public init(base: BenchmarkPlan, new: BenchmarkPlan) {
        var aligned = new
        var named: [String] = []
        for dimension in PolicyDimension.allCases {
            let mine = Self.values(dimension, base), theirs = Self.values(dimension, new)
            guard mine != theirs else { continue }
            named.append("\(dimension.flag) \(mine.joined(separator: ",")) → \(theirs.joined(separator: ","))")
            // The new plan with the base's value: what is left to differ is not a named setting.
            dimension.apply(dimension.value(of: base.settings), to: &aligned.settings)
            aligned.variations.removeAll { $0.dimension == dimension }
            aligned.variations += base.variations.filter { $0.dimension == dimension }
        }
        aligned.variations.sort { $0.dimension < $1.dimension }
        var reference = base
        reference.variations.sort { $0.dimension < $1.dimension }
        self.named = named
        unpaired = reference.configurationDifferences(from: aligned)
    }

    /// A plan's values of a setting: its list where it varies, else its one value.
    static func values(_ dimension: PolicyDimension, _ plan: BenchmarkPlan) -> [String] {
        plan.variations.first { $0.dimension == dimension }?.values ?? [dimension.value(of: plan.settings)]
    }
}
