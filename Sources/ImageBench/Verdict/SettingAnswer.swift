import Foundation

/// The answer to one question a run asked ("which limit?", "how big a cache?"): for a varied
/// setting, in each context (the cells that differ only in it), the value to choose and what it
/// buys against each other value, from the paired differences of the ranked metric. The value
/// chosen is the fastest, or where larger values ask for more, the smallest that does as well
/// within a tie's margin; it is a choice only where every other value is shown slower, tied
/// and costlier, or tied and asking more. The verdict's first line names a cell only where these
/// answers name its values.
struct SettingAnswer: Sendable {
    enum Relation: String, Sendable {
        /// Slower than the choice beyond noise.
        case slower
        /// Within a tie's margin of the choice.
        case tied
        /// Neither: more data would tell.
        case open
    }

    /// One other value against the choice.
    struct Comparison: Sendable {
        let cell: Verdict.Cell
        let value: String
        /// The choice minus this value (negative: the choice is faster), paired; nil: too few segments.
        let difference: Interval?
        let relation: Relation
        /// Why a tied value is not the choice: it costs more, or asks for more (nil: it does neither).
        let costlier: Bool
    }

    /// The answer among the cells that share one context.
    struct Context: Sendable {
        /// The other varied axes' values ("prefetch=10"); empty where nothing else varies.
        let name: String
        let choice: Verdict.Cell
        let choiceValue: String
        let decision: Verdict.Decision
        let comparisons: [Comparison]
        /// The first value the run named other than the choice: what the costs are said against.
        let costReference: Verdict.Cell?
    }

    let axis: SettingAxis
    let contexts: [Context]
    /// The other varied axes' names: what a context is made of.
    let contextAxes: [String]

    /// The answers of every axis the ranked `cells` vary along (valid cells only).
    static func answers(_ cells: [Verdict.Cell]) -> [SettingAnswer] {
        let axes = SettingAxis.varied(in: cells)
        return axes.compactMap { axis in
            let groups = Dictionary(grouping: cells) { axis.context(of: $0, among: axes) }
            // Contexts in the order the run named their cells.
            let names = cells.map { axis.context(of: $0, among: axes) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            let contexts = names.compactMap { name in context(name, groups[name]!, axis: axis, axes: axes) }
            return contexts.isEmpty ? nil : SettingAnswer(axis: axis, contexts: contexts, contextAxes: axes.filter { $0.kind != axis.kind }.map(\.name))
        }
    }

    static func context(_ name: String, _ cells: [Verdict.Cell], axis: SettingAxis, axes: [SettingAxis]) -> Context? {
        guard cells.count > 1 else { return nil }
        let fastest = cells.min { $0.ranking.overall < $1.ranking.overall }!
        let tiedWithFastest = cells.filter { $0.name != fastest.name && (Verdict.equivalent(fastest, $0) || Verdict.asGoodForLess($0, than: fastest, axes: axes)) }
        var choice = fastest
        for cell in tiedWithFastest where axis.asksMoreWhenLarger {
            // The smallest value that does as well, unless it costs more beyond noise.
            if SettingAxis.magnitude(axis.value(of: cell)) < SettingAxis.magnitude(axis.value(of: choice)) && !Verdict.cheaper(fastest, than: cell) {
                choice = cell
            }
        }
        if !axis.asksMoreWhenLarger {
            choice = tiedWithFastest.reduce(fastest) { best, cell in Verdict.cheaper(cell, than: best) ? cell : best }
        }
        let comparisons = cells.filter { $0.name != choice.name }.sorted { order(axis, $0, $1) }.map { cell in
            let difference = choice.ranking.difference(from: cell.ranking)
            // As the verdict judges: equivalence first (the fastest, where a value was chosen over
            // it, is tied by that choice), then slower beyond noise, then as good for less either way.
            let relation: Relation
            if Verdict.equivalent(choice, cell) || cell.name == fastest.name {
                relation = .tied
            } else if Verdict.shownSlower(cell, than: choice) {
                relation = .slower
            } else if Verdict.asGoodForLess(choice, than: cell, axes: axes) || Verdict.asGoodForLess(cell, than: choice, axes: axes) {
                relation = .tied
            } else {
                relation = .open
            }
            let costlier = Verdict.cheaper(choice, than: cell) || SettingAxis.asksLess(choice, than: cell, axes: axes) && !Verdict.cheaper(cell, than: choice)
            return Comparison(cell: cell, value: axis.value(of: cell), difference: difference, relation: relation, costlier: costlier)
        }
        let decision: Verdict.Decision
        if comparisons.contains(where: { $0.relation == .open }) {
            decision = .undecided
        } else if comparisons.contains(where: { $0.relation == .tied }) {
            decision = comparisons.allSatisfy { $0.relation == .slower || $0.costlier } ? .cheaper : .tie
        } else {
            decision = .better
        }
        // `cells` are in the order the run named them.
        return Context(name: name, choice: choice, choiceValue: axis.value(of: choice), decision: decision, comparisons: comparisons,
                       costReference: cells.first { $0.name != choice.name })
    }

    /// Values in the order the run named them.
    private static func order(_ axis: SettingAxis, _ a: Verdict.Cell, _ b: Verdict.Cell) -> Bool {
        (axis.values.firstIndex(of: axis.value(of: a)) ?? 0) < (axis.values.firstIndex(of: axis.value(of: b)) ?? 0)
    }

    /// The cells that keep `best` from being named: in the context of each answer that holds it,
    /// another value chosen, a value left open, or one tied that is not costlier.
    static func disputing(_ best: Verdict.Cell, _ answers: [SettingAnswer], axes: [SettingAxis]) -> [Verdict.Cell] {
        answers.flatMap { answer -> [Verdict.Cell] in
            guard let context = answer.contexts.first(where: { $0.name == answer.axis.context(of: best, among: axes) }) else { return [] }
            guard context.choice.name == best.name else { return [context.choice] }
            return context.comparisons.filter { $0.relation == .open || $0.relation == .tied && !$0.costlier }.map(\.cell)
        }
    }

    /// A value is the answer in every context, decided (better, or as good and cheaper): the value.
    var settled: String? {
        guard let first = contexts.first, contexts.allSatisfy({ $0.choiceValue == first.choiceValue && ($0.decision == .better || $0.decision == .cheaper) })
        else { return nil }
        return first.choiceValue
    }
}
