import Foundation

/// The headline findings of a benchmark in words, generated from its numbers (medians over
/// repeats): what a reader would otherwise work out from the table. report.md opens with them.
public enum Findings {
    public static func sentences(_ results: [RunResult]) -> [String] {
        // Only valid cells are compared: the control, failed, stopped and overloaded runs are not.
        let all = CellAggregate.of(results)
        let cells = CellAggregate.of(results.filter { CellValidity($0.summary).isValid })
        var sentences: [String] = []
        let limits = Array(Set(cells.map(\.concurrency))).sorted()
        for limit in limits {
            let here = cells.filter { $0.concurrency == limit }
            guard here.count > 1 else { continue }
            sentences.append(compare(here, limit: limit, metric: .latencyP95, name: "p95 display latency"))
            sentences.append(compare(here, limit: limit, metric: .memoryHitRate, name: "memory hit rate"))
        }
        let strategies = cells.map(\.strategy).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for strategy in strategies {
            let sweep = cells.filter { $0.strategy == strategy }.sorted { $0.concurrency < $1.concurrency }
            guard let first = sweep.first, let last = sweep.last, sweep.count > 1 else { continue }
            let from = first.median(.latencyP95) ?? 0, to = last.median(.latencyP95) ?? 0
            sentences.append("\(strategy): p95 display latency went from \(Format.milliseconds(from)) at a limit of \(first.concurrency) "
                             + "to \(Format.milliseconds(to)) at \(last.concurrency)\(change(from: from, to: to)).")
        }
        for cell in all where (cell.median(.hitchMsPerS) ?? 0) >= 50 {
            sentences.append("\(cell.strategy) at \(cell.concurrency) hitched \(String(format: "%.0f", cell.median(.hitchMsPerS)!)) ms per "
                             + "second of scrolling, above the 50 ms/s Apple calls critical.")
        }
        return sentences
    }

    static func compare(_ cells: [CellAggregate], limit: Int, metric: Metric, name: String) -> String {
        let lowerIsBetter = metric.better != .higherIsBetter
        let ordered = cells.sorted { (a, b) in
            let x = a.median(metric) ?? 0, y = b.median(metric) ?? 0
            return lowerIsBetter ? x < y : x > y
        }
        // Against the runner-up, not the worst: the choice a reader has to make.
        let best = ordered[0], runnerUp = ordered[1]
        let bestValue = best.median(metric) ?? 0, runnerUpValue = runnerUp.median(metric) ?? 0
        let show = metric.unit == "ratio" ? Format.percent : Format.milliseconds
        guard bestValue != runnerUpValue else {
            return "At a limit of \(limit), every strategy had the same \(name), \(show(bestValue))."
        }
        let gap: String
        if metric.unit == "ratio" {
            gap = String(format: "%.1f points above", (bestValue - runnerUpValue) * 100)
        } else {
            gap = String(format: "%.0f%% below", (runnerUpValue - bestValue) / runnerUpValue * 100)
        }
        return "At a limit of \(limit), \(best.strategy) had the \(lowerIsBetter ? "lowest" : "highest") \(name), \(show(bestValue)), "
            + "\(gap) \(runnerUp.strategy) (\(show(runnerUpValue)))."
    }

    static func change(from: Double, to: Double) -> String {
        guard from > 0, from != to else { return "" }
        return String(format: " (%+.0f%%)", (to - from) / from * 100)
    }
}
