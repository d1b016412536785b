import Foundation

/// The verdict in sentences, each with its numbers, intervals and n.
extension Verdict {
    static func explain(best: Cell, decision: Decision, ranked: [Cell], tied: [Cell], open: [Cell], knee: Cell?, all: [Cell], plan: BenchmarkPlan?,
                        answers: [SettingAnswer] = [], axes: [SettingAxis] = [], asked: RankedMetric = .placeholder) -> [String] {
        // Tied cells in the order the run named them, not in the order of their means.
        let inOrder = all.filter { cell in tied.contains { $0.name == cell.name } }
        var lines = [headline(best: best, decision: decision, ranked: ranked, tied: inOrder, open: open, axes: axes)
                     + (SecondaryView.clause(best: best, decision: decision, ranked: ranked) ?? "") + unrankedFaster(than: best, all: all)]
        // One line per question the run asked, from the paired effects; what the strategies shared
        // where only they varied.
        lines += answers.map { "  " + $0.line + ($0.axis.kind == .strategy && answers.count == 1 ? SharedSettings.clause(plan, best) : "") + "." }
        if let other = ranked.first(where: { $0.name != best.name }) {
            lines.append(versus(best, other, tied: tied.contains { $0.name == other.name }, plan: plan))
        } else {
            lines.append("No other cell to compare with.")
        }
        if let knee, knee.concurrency < best.concurrency {
            let difference = knee.ranking.difference(from: best.ranking).map(signed) ?? "not comparable"
            lines.append("\(best.strategy) at a limit of \(knee.concurrency)\(best.inFormat)\(best.withVariant) does as well within noise (\(difference); "
                         + String(format: "a tie needs ±%.1f ms): the smallest limit that does.", tieMargin(best)))
        }
        for cell in ranked where cell.achievedPeak < cell.concurrency {
            lines.append("\(cell.name) ran at most \(cell.achievedPeak) loads at once: \(whyBelowLimit(cell))")
        }
        lines += formatLines(best: best, all: all)
        if asked == .restWait, let rests = FewRests.line(best: best, ranked: ranked, plan: plan) { lines.append(rests) }
        let excluded = all.filter { !$0.validity.isValid }
        if !excluded.isEmpty {
            lines.append("Not ranked: " + excluded.map { "\($0.name) (\($0.validity == .control ? "the control" : "\($0.validity)"))" }
                .joined(separator: "; ") + ".")
        }
        return lines
    }

    /// The first line: a recommendation only where the data makes one (better or cheaper beyond
    /// noise); otherwise the tie or the open question, with the leader's numbers.
    static func headline(best: Cell, decision: Decision, ranked: [Cell], tied: [Cell], open: [Cell], axes: [SettingAxis] = []) -> String {
        let at = "\(best.strategy) at a limit of \(best.concurrency)\(best.inFormat)\(best.withVariant)"
        let numbers = "\(best.rankedBy.rawValue) \(estimate(best)), \(best.rankingP95Name) \(ms(best.rankingP95Ms))"
        switch decision {
        case .better:
            return "Recommended: \(at): \(numbers)."
        case .cheaper:
            let others = tied.filter { $0.name != best.name }
            // Asking for less decides only where the costs do not.
            let asksLess = others.filter { !cheaper(best, than: $0) }
            if !asksLess.isEmpty {
                let less = asksLess.map { other in
                    axes.filter { $0.value(of: best) != $0.value(of: other) }.map { "\($0.name) \($0.shown($0.value(of: best))) against \($0.shown($0.value(of: other)))" }
                        .joined(separator: ", ")
                }
                let beaten = ranked.filter { cell in !tied.contains { $0.name == cell.name } && shownSlower(cell, than: best) }
                let beats = beaten.isEmpty ? "" : "beats \(list(beaten.map(\.name))) beyond noise, and "
                return "Recommended: \(at): \(beats)is no slower than \(list(others.map(\.name))) by more than a tie's margin ("
                    + String(format: "%.1f", tieMargin(ranked[0])) + " ms) while asking for less (\(list(less))): " + numbers + "."
            }
            return "Recommended: \(at): as fast as \(list(others.map(\.name))) within noise and cheaper than each beyond the costs' noise (\(costNoise(tied))) "
                + String(format: "(%.1f kB and %.1f ms CPU per displayed image): ", best.bytesPerImage / 1e3, best.cpuPerImage * 1e3) + numbers + "."
        case .tie:
            let means = tied.map { String(format: "%.1f", $0.ranking.overall) }.joined(separator: " / ")
            let costs = tied.map { String(format: "%.1f", $0.bytesPerImage / 1e3) }.joined(separator: " / ")
            return "No difference beyond noise between \(tiedNames(tied)): \(best.rankedBy.rawValue) \(means) ms, "
                + String(format: "each within ±%.1f ms of the fastest", tieMargin(ranked[0]))
                + "; none is cheaper than all the others beyond the costs' noise (\(costNoise(tied)); \(costs) kB per displayed image), so none is recommended over the others; \(ranked[0].name) has the least mean."
        case .undecided:
            // What is decided: the cells slower than the leader and than every open one alike.
            let contenders = [best] + open
            // Not a cell tied with the leader: slower beyond noise, perhaps, but not by more than a tie allows.
            let beaten = ranked.filter { cell in
                !contenders.contains { $0.name == cell.name } && !tied.contains { $0.name == cell.name } && contenders.allSatisfy { shownSlower(cell, than: $0) }
            }
            let beat = beaten.isEmpty ? "" : "; \(contenders.count == 2 ? "both" : "each") \(contenders.count == 1 ? "beats" : "beat") \(list(beaten.map(\.name))) beyond noise"
            return "Undecided: \(at) leads (\(numbers)), but \(list(open.map(\.name))) \(open.count == 1 ? "is" : "are") "
                + "not shown slower beyond noise\(beat)."
        case .alone:
            return "Measured: \(at), the only cell ranked: \(numbers)."
        }
    }

    /// " Not ranked, though its mean was lower: …": a cell left out (an overloaded host, most loads
    /// failed) whose mean beat the leader's, so a reader of the first line alone does not take the
    /// leader for the best of every cell.
    static func unrankedFaster(than best: Cell, all: [Cell]) -> String {
        let faster = all.compactMap { cell -> (Cell, String)? in
            guard case .invalid(let reason) = cell.validity, cell.ranking.requests > 0, cell.ranking.overall < best.ranking.overall else { return nil }
            return (cell, reason)
        }
        guard !faster.isEmpty else { return "" }
        let host = faster.contains { $0.1.hasPrefix("host overloaded") } ? ": a run on a quieter machine would rank it" : ""
        return " Not ranked, though its mean was lower: " + faster.map { "\($0.0.name) (\(ms($0.0.ranking.overall)); \($0.1))" }.joined(separator: "; ")
            + "; the answer is among the ranked cells only\(host)."
    }

    /// How the costs' noise was judged: over repeats, or by the shares one run each allows.
    static func costNoise(_ cells: [Cell]) -> String {
        cells.allSatisfy { $0.runs >= 3 } ? "Welch's \(Confidence.label) interval over the repeats"
            : String(format: "%.0f%% of bytes, %.0f%% of CPU from fewer than three runs each", bytesTolerance * 100, cpuTolerance * 100)
    }

    /// "operation-queue, gcd and threads ×5" where the limit and format are shared, else the full names.
    static func tiedNames(_ cells: [Cell]) -> String {
        let shared = Set(cells.map { "\($0.concurrency) \($0.format)\($0.variant)" }).count == 1
        guard shared, let first = cells.first else { return list(cells.map(\.name)) }
        let suffix = String(first.name.dropFirst(first.strategy.count))
        return list(cells.map(\.strategy)) + suffix
    }

    /// "a", "a and b", "a, b and c".
    static func list(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    static func versus(_ best: Cell, _ other: Cell, tied: Bool, plan: BenchmarkPlan?) -> String {
        let head = "Runner-up \(other.name): \(estimate(other))"
        guard let difference = other.ranking.difference(from: best.ranking) else {
            return head + "; too few \(best.rankedBy.pairs) to tell them apart: the faster mean stands."
        }
        let test = "paired t over \(difference.n) \(best.rankedBy.pairs), with run-to-run noise"
        guard tied else {
            guard difference.includesZero else {
                return head + "; \(signed(difference)) slower (\(test)): \(best.name) is faster."
            }
            if shownSlower(other, than: best), let rests = RestComparison(other.ranking, best.ranking) {
                return head + String(format: "; slower: it waited longer at %d of %d rests and shorter at %d beyond one rest's noise, the rest within it "
                                     + "(rest test p = %.4f), though a few rests carry most of the difference (%@, %@): %@ is faster.",
                                     rests.longer, rests.rests, rests.shorter, rests.p, signed(difference), test, best.name)
            }
            return head + String(format: "; undecided: difference %@ (%@) holds 0 but reaches past the ±%.1f ms a tie needs, "
                                 + "so the faster mean stands; %@.", signed(difference), test, tieMargin(best), narrowing(difference, best, other, plan))
        }
        let cost = String(format: "%.1f vs %.1f kB downloaded and %.1f vs %.1f ms CPU per displayed image",
                          best.bytesPerImage / 1e3, other.bytesPerImage / 1e3, best.cpuPerImage * 1e3, other.cpuPerImage * 1e3)
        let reason = cheaper(best, than: other) ? "chosen by cost" : "costs alike too, so the faster mean stands"
        return head + String(format: "; a tie: difference %@, within ±%.1f ms (%@); %@ (%@).",
                             signed(difference), tieMargin(fastestOf(best, other)), test, reason, cost)
    }

    /// What would narrow an undecided difference. Repeats scroll the same trace again and narrow
    /// only the run-to-run noise; where most of the width is how the difference varies from one
    /// stretch (or rest) of the trace to the next, which repeats reproduce, only more trace helps.
    static func narrowing(_ difference: Interval, _ best: Cell, _ other: Cell, _ plan: BenchmarkPlan?) -> String {
        guard difference.runNoiseShare < 0.5 else {
            return (min(best.runs, other.runs) < 3 ? "--repeat 3" : "--repeat \(2 * max(best.runs, other.runs))") + " narrows it"
        }
        return String(format: "repeats would not narrow it (%.0f%% of its variance is how the difference varies over the trace, which a repeat "
                      + "reproduces), more trace would: %@", 100 * (1 - difference.runNoiseShare), FewRests.command(plan))
    }

    /// The one of two cells with the smaller mean: the reference a tie's margin is taken from.
    static func fastestOf(_ a: Cell, _ b: Cell) -> Cell { a.ranking.overall <= b.ranking.overall ? a : b }

    static func whyBelowLimit(_ cell: Cell) -> String {
        switch StrategyKind(rawValue: cell.strategy) {
        case .async where cell.transport == TransportKind.blocking.rawValue:
            "with the blocking transport each load holds one of Swift's cooperative threads (one per core); --transport multi lets it reach its limit."
        case .operationQueue, .gcd:
            "Dispatch's pool grows by about a thread a second while work blocks; a longer warm-up (--warmup-seconds 10) or --transport multi lets it reach its limit."
        default:
            "the feed did not ask for more at once."
        }
    }

    /// "12.3 ms (95% CI 10.1–14.5 ms, n = 4512 requests)": the cell's ranked metric.
    static func estimate(_ cell: Cell) -> String { estimate(cell.ranking, counting: cell.rankedBy.counts) }

    static func estimate(_ means: SegmentMeans, counting: String = "requests") -> String {
        let interval = means.interval.map { String(format: "%@ CI %.1f–%.1f ms, ", Confidence.label, $0.low, $0.high) } ?? "no interval, "
        // A rest measured again by a repeat is the same rest: n counts rests, and the samples beside.
        let n = counting == "rests" && means.requests > means.distinctSegments
            ? "\(means.distinctSegments) rests, \(means.requests) samples over the repeats" : "\(means.requests) \(counting)"
        return ms(means.overall) + " (\(interval)n = \(n))"
    }

    /// "+0.7 ms, 95% CI −0.5 to +1.9 ms".
    static func signed(_ interval: Interval) -> String {
        // A bound that rounds to zero prints as 0.0, not as "-0.0".
        let shown = { (value: Double) in abs(value) < 0.05 ? 0 : value }
        return String(format: "%+.1f ms, %@ CI %+.1f to %+.1f ms", shown(interval.center), Confidence.label, shown(interval.low), shown(interval.high))
    }

    static func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
}
