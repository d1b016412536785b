import Foundation

/// A setting's answer in one line, in the user's units: "limit: 8 — placeholder time −30.0 ms
/// (95% CI −35.2 to −24.8 ms) against 1, …; downloads +12.3 MB against 1". Every difference is
/// the choice minus the other value, paired on the same trace, with its interval.
extension SettingAnswer {
    var line: String {
        let head = axis.name + ": "
        guard contexts.count > 1 else { return head + Self.text(contexts[0], axis: axis, naming: true) }
        let others = contextAxes.isEmpty ? "the other settings" : Verdict.list(contextAxes)
        let listed = contexts.prefix(Self.listedContexts)
        let more = contexts.count > listed.count ? "; and \(contexts.count - listed.count) more" : ""
        if let value = settled {
            return head + "\(axis.shown(value)) at every \(others) — "
                + listed.map { "at \($0.name): " + Self.text($0, axis: axis, naming: false) }.joined(separator: "; ") + more
        }
        return head + "depends on \(others) — " + listed.map { "at \($0.name): " + Self.text($0, axis: axis, naming: true) }.joined(separator: "; ") + more
    }

    /// Contexts said one by one at most.
    static let listedContexts = 4

    /// One context's answer; `naming`: open with the value chosen (a line of several contexts that
    /// all choose one value names it once).
    static func text(_ context: Context, axis: SettingAxis, naming: Bool) -> String {
        let metric = context.choice.rankedBy.rawValue
        let choice = axis.shown(context.choiceValue)
        let slower = context.comparisons.filter { $0.relation == .slower }
        let tied = context.comparisons.filter { $0.relation == .tied }
        let open = context.comparisons.filter { $0.relation == .open }
        let beats = slower.isEmpty ? "" : "\(metric) " + Verdict.list(slower.map { against($0, axis) })
        switch context.decision {
        case .better, .alone:
            return (naming ? choice + " — " : "") + beats + costs(context, axis)
        case .cheaper:
            let buys = tied.map { comparison in
                "\(axis.shown(comparison.value)) " + (axis.asksMoreWhenLarger && SettingAxis.magnitude(comparison.value) > SettingAxis.magnitude(context.choiceValue)
                    ? "buys nothing over it beyond a tie's margin" : "does as well but costs more") + " (\(interval(comparison)))"
            }
            return (naming ? choice + " — " : "") + (beats.isEmpty ? "" : beats + "; ") + Verdict.list(buys) + costs(context, axis)
        case .tie:
            let names = [choice] + tied.map { axis.shown($0.value) }
            return "a tie between \(Verdict.list(names)): \(metric) within a tie's margin ("
                + tied.map { "\(choice) \(interval($0)) against \(axis.shown($0.value))" }.joined(separator: "; ") + ")"
                + (slower.isEmpty ? "" : "; each beats \(Verdict.list(slower.map { axis.shown($0.value) })) beyond noise (\(beats))")
        case .undecided:
            return "undecided: \(choice) leads, but \(Verdict.list(open.map { axis.shown($0.value) })) \(open.count == 1 ? "is" : "are") not shown slower ("
                + open.map { against($0, axis) }.joined(separator: "; ") + ")"
                + (slower.isEmpty ? "" : "; \(choice) beats \(Verdict.list(slower.map { axis.shown($0.value) })) beyond noise (\(beats))")
        }
    }

    /// "−30.0 ms (95% CI −35.2 to −24.8 ms) against 1".
    static func against(_ comparison: Comparison, _ axis: SettingAxis) -> String {
        interval(comparison) + " against " + axis.shown(comparison.value)
    }

    static func interval(_ comparison: Comparison) -> String {
        guard let d = comparison.difference else { return "too few segments to pair" }
        let shown = { (value: Double) in abs(value) < 0.05 ? 0 : value }
        return String(format: "%+.1f ms (%@ CI %+.1f to %+.1f ms)", shown(d.center), Confidence.label, shown(d.low), shown(d.high))
    }

    /// What the choice downloads against the first other value the run named.
    static func costs(_ context: Context, _ axis: SettingAxis) -> String {
        guard let baseline = context.costReference else { return "" }
        let (mine, theirs) = (context.choice.megabytesPerRun, baseline.megabytesPerRun)
        return String(format: "; downloads %+.1f MB against %@ (%.1f against %.1f MB)", mine - theirs, axis.shown(axis.value(of: baseline)), mine, theirs)
    }
}
