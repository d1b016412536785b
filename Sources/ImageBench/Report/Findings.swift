import Foundation

/// The headline findings of a benchmark in words, generated from its numbers (medians over
/// repeats): what a reader would otherwise work out from the table. report.md opens with them.
public enum Findings {
    public static func sentences(_ results: [RunResult]) -> [String] {
        let cells = CellAggregate.of(results)
        var sentences: [String] = []
        let limits = Array(Set(cells.map(\.concurrency))).sorted()
        for limit in limits {
            let here = cells.filter { $0.concurrency == limit }
            guard here.count > 1 else { continue }
            sentences.append(compare(here, limit: limit, metric: "latency_p95_ms", name: "p95 display latency", lowerIsBetter: true))
            sentences.append(compare(here, limit: limit, metric: "memory_hit_rate", name: "memory hit rate", lowerIsBetter: false))
        }
        let strategies = cells.map(\.strategy).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for strategy in strategies {
            let sweep = cells.filter { $0.strategy == strategy }.sorted { $0.concurrency < $1.concurrency }
            guard let first = sweep.first, let last = sweep.last, sweep.count > 1 else { continue }
            let from = first.number("latency_p95_ms") ?? 0, to = last.number("latency_p95_ms") ?? 0
            sentences.append("\(strategy): p95 display latency went from \(ms(from)) at a limit of \(first.concurrency) "
                             + "to \(ms(to)) at \(last.concurrency)\(change(from: from, to: to)).")
        }
        for cell in cells where (cell.number("hitch_ms_per_s") ?? 0) >= 50 {
            sentences.append("\(cell.strategy) at \(cell.concurrency) hitched \(String(format: "%.0f", cell.number("hitch_ms_per_s")!)) ms per "
                             + "second of scrolling, above the 50 ms/s Apple calls critical.")
        }
        return sentences
    }

    static func compare(_ cells: [CellAggregate], limit: Int, metric: String, name: String, lowerIsBetter: Bool) -> String {
        let ordered = cells.sorted { (a, b) in
            let x = a.number(metric) ?? 0, y = b.number(metric) ?? 0
            return lowerIsBetter ? x < y : x > y
        }
        let best = ordered.first!, worst = ordered.last!
        let bestValue = best.number(metric) ?? 0, worstValue = worst.number(metric) ?? 0
        let show = metric.hasSuffix("_rate") ? percent : ms
        guard bestValue != worstValue else {
            return "At a limit of \(limit), every strategy had the same \(name), \(show(bestValue))."
        }
        let gap: String
        if metric.hasSuffix("_rate") {
            gap = String(format: "%.1f points above", (bestValue - worstValue) * 100)
        } else {
            gap = String(format: "%.0f%% below", (worstValue - bestValue) / worstValue * 100)
        }
        return "At a limit of \(limit), \(best.strategy) had the \(lowerIsBetter ? "lowest" : "highest") \(name), \(show(bestValue)), "
            + "\(gap) \(worst.strategy) (\(show(worstValue)))."
    }

    static func change(from: Double, to: Double) -> String {
        guard from > 0, from != to else { return "" }
        return String(format: " (%+.0f%%)", (to - from) / from * 100)
    }

    /// As summary.csv prints them (3 decimals), so a reader can find the number in the table.
    static func ms(_ value: Double) -> String { String(format: "%.3f ms", value) }
    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
}

extension CellAggregate {
    /// The median over repeats of one metric.
    func number(_ metric: String) -> Double? { estimates.first { $0.metric == metric }?.estimate.median }
}
