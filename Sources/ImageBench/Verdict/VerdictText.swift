import Foundation

/// The verdict in sentences, each with its numbers, intervals and n.
extension Verdict {
    static func explain(best: Cell, ranked: [Cell], tied: [Cell], knee: Cell?, all: [Cell]) -> [String] {
        var lines = ["Recommended: \(best.strategy) at a limit of \(best.concurrency)\(best.inFormat): placeholder time \(estimate(best.placeholder)), "
                     + "p95 \(ms(best.placeholderP95Ms))."]
        if let other = ranked.first(where: { $0.name != best.name }) {
            lines.append(versus(best, other, tied: tied.contains { $0.name == other.name }))
        } else {
            lines.append("No other cell to compare with.")
        }
        if let knee, knee.concurrency < best.concurrency {
            let difference = knee.placeholder.difference(from: best.placeholder).map(signed) ?? "not comparable"
            lines.append("\(best.strategy) at a limit of \(knee.concurrency)\(best.inFormat) does as well within noise (\(difference); "
                         + String(format: "a tie needs ±%.1f ms): the smallest limit that does.", tieMargin(best)))
        }
        for cell in ranked where cell.achievedPeak < cell.concurrency {
            lines.append("\(cell.name) ran at most \(cell.achievedPeak) loads at once: \(whyBelowLimit(cell))")
        }
        lines += formatLines(best: best, all: all)
        let excluded = all.filter { !$0.validity.isValid }
        if !excluded.isEmpty {
            lines.append("Not ranked: " + excluded.map { "\($0.name) (\($0.validity == .control ? "the control" : "\($0.validity)"))" }
                .joined(separator: "; ") + ".")
        }
        return lines
    }

    static func versus(_ best: Cell, _ other: Cell, tied: Bool) -> String {
        let head = "Runner-up \(other.name): \(estimate(other.placeholder))"
        guard let difference = other.placeholder.difference(from: best.placeholder) else {
            return head + "; too few trace segments to tell them apart: the faster mean stands."
        }
        let test = "paired t over \(difference.n) trace segments, with run-to-run noise"
        guard tied else {
            guard difference.includesZero else {
                return head + "; \(signed(difference)) slower (\(test)): \(best.name) is faster."
            }
            return head + String(format: "; undecided: difference %@ (%@) holds 0 but reaches past the ±%.1f ms a tie needs, "
                                 + "so the faster mean stands; %@ narrows it.", signed(difference), test, tieMargin(best),
                                 min(best.runs, other.runs) < 3 ? "--repeat 3" : "--repeat \(2 * max(best.runs, other.runs))")
        }
        let cost = String(format: "%.1f vs %.1f kB downloaded and %.1f vs %.1f ms CPU per displayed image",
                          best.bytesPerImage / 1e3, other.bytesPerImage / 1e3, best.cpuPerImage * 1e3, other.cpuPerImage * 1e3)
        let reason = cheaper(best, than: other) ? "chosen by cost" : "costs alike too, so the faster mean stands"
        return head + String(format: "; a tie: difference %@, within ±%.1f ms (%@); %@ (%@).",
                             signed(difference), tieMargin(fastestOf(best, other)), test, reason, cost)
    }

    /// The one of two cells with the smaller mean: the reference a tie's margin is taken from.
    static func fastestOf(_ a: Cell, _ b: Cell) -> Cell { a.placeholder.overall <= b.placeholder.overall ? a : b }

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

    /// "12.3 ms (95% CI 10.1–14.5 ms, n = 4512 requests)".
    static func estimate(_ means: SegmentMeans) -> String {
        let interval = means.interval.map { String(format: "95%% CI %.1f–%.1f ms, ", $0.low, $0.high) } ?? "no interval, "
        return ms(means.overall) + " (\(interval)n = \(means.requests) requests)"
    }

    /// "+0.7 ms, 95% CI −0.5 to +1.9 ms".
    static func signed(_ interval: Interval) -> String {
        // A bound that rounds to zero prints as 0.0, not as "-0.0".
        let shown = { (value: Double) in abs(value) < 0.05 ? 0 : value }
        return String(format: "%+.1f ms, 95%% CI %+.1f to %+.1f ms", shown(interval.center), shown(interval.low), shown(interval.high))
    }

    static func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
}
