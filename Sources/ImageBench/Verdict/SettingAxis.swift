/// A setting a run varied, as the verdict answers it: the strategy, the limit, the format, or a
/// policy given as a list (`--cancel none,offscreen`). Every cell has one value of each axis.
/// Cells that share every other axis's value form a context: within one, the axis's effect is
/// paired on the same trace, and nothing else differs.
struct SettingAxis: Sendable {
    enum Kind: Sendable, Equatable {
        case strategy, limit, format
        case policy(PolicyDimension)
    }

    let kind: Kind
    /// Its values, in the order the run named them (the first is what a user compares with).
    let values: [String]

    /// What a user calls it: "strategy", "limit", "memory-cache".
    var name: String {
        switch kind {
        case .strategy: "strategy"
        case .limit: "limit"
        case .format: "format"
        case .policy(let dimension): dimension.dimension.label
        }
    }

    /// A larger value asks for more (threads, connections, memory, work ahead of need): where two
    /// values do as well within noise, the smaller is the answer.
    var asksMoreWhenLarger: Bool {
        switch kind {
        case .limit: true
        case .strategy, .format: false
        case .policy(let dimension): dimension.dimension.asksMoreWhenLarger
        }
    }

    func value(of cell: Verdict.Cell) -> String {
        switch kind {
        case .strategy: cell.strategy
        case .limit: String(cell.concurrency)
        case .format: cell.format
        case .policy(let dimension): cell.policies.values[dimension] ?? ""
        }
    }

    /// A value as a sentence names it: "8", "16MB", "none".
    func shown(_ value: String) -> String {
        if case .policy(let dimension) = kind { return value + dimension.dimension.unit }
        return value
    }

    /// A value as a cell's name shows it: "gcd", "×8", "avif", "memory-cache=16MB".
    func label(_ value: String) -> String {
        switch kind {
        case .strategy, .format: value
        case .limit: "×" + value
        case .policy(let dimension): dimension.label(value)
        }
    }

    /// Where the value stands among the others when larger asks for more ("off" is none).
    static func magnitude(_ value: String) -> Double { Double(value) ?? 0 }

    /// The axes along which `cells` differ, in the order a cell's name gives them.
    static func varied(in cells: [Verdict.Cell]) -> [SettingAxis] {
        var kinds: [Kind] = [.strategy, .limit, .format]
        kinds += PolicyDimension.allCases.filter { dimension in cells.contains { $0.policies.values[dimension] != nil } }.map(Kind.policy)
        return kinds.compactMap { kind in
            let probe = SettingAxis(kind: kind, values: [])
            let values = cells.map(probe.value(of:)).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            return values.count > 1 ? SettingAxis(kind: kind, values: values) : nil
        }
    }

    /// `cell`'s values on the other varied axes: what it shares with the cells it is compared with
    /// along this one ("prefetch=10", "gcd ×5"); empty where nothing else varies.
    func context(of cell: Verdict.Cell, among axes: [SettingAxis]) -> String {
        axes.filter { $0.kind != kind }.map { $0.label($0.value(of: cell)) }.joined(separator: " ")
    }

    /// `a` differs from `b` only by asking for less: no more on every axis where larger asks for
    /// more, less on one, and the same value on every other axis.
    static func asksLess(_ a: Verdict.Cell, than b: Verdict.Cell, axes: [SettingAxis]) -> Bool {
        var less = false
        for axis in axes {
            let (mine, theirs) = (axis.value(of: a), axis.value(of: b))
            guard mine != theirs else { continue }
            guard axis.asksMoreWhenLarger else { return false }
            if magnitude(mine) > magnitude(theirs) { return false }
            less = true
        }
        return less
    }
}
