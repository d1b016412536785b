import Foundation

/// The headline findings of a benchmark in words, generated from its numbers (medians over
/// repeats): what a reader would otherwise work out from the table. A strategy is named better
/// only where the difference is beyond the noise (the same test as the table's marks); otherwise
/// the finding says so. Every percentile carries its n.
enum Findings {
    static func sentences(_ benchmark: BenchmarkResults) -> [String] {
        sentences(benchmark.results, traceFrames: Verdict.traceFrames(benchmark))
    }

    /// With several formats, each format's cells are compared among themselves ("In avif: …");
    /// the verdict compares the formats.
    static func sentences(_ results: [RunResult], traceFrames: Int) -> [String] {
        // Errors first: what failed, by status, before any comparison of what succeeded.
        let errors = RunResult.byCell(results).compactMap(ErrorNotes.line)
        let formats = results.map(\.summary.format).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard formats.count > 1 else { return errors + sentencesInOneFormat(results, traceFrames: traceFrames) }
        return errors + formats.flatMap { format in
            sentencesInOneFormat(results.filter { $0.summary.format == format }, traceFrames: traceFrames).map { "In \(format): " + $0 }
        }
    }

    static func sentencesInOneFormat(_ results: [RunResult], traceFrames: Int) -> [String] {
        // Only valid cells are compared: the control, failed, stopped and overloaded runs are not.
        let cells = RunResult.byCell(results).filter { CellValidity($0.map(\.summary)).isValid }
        var sentences: [String] = []
        let limits = Array(Set(cells.map { $0[0].cell.concurrency })).sorted()
        for limit in limits {
            let here = cells.filter { $0[0].cell.concurrency == limit }
            guard here.count > 1 else { continue }
            sentences.append(compare(here, limit: limit, metric: .display[.p95], name: "p95 display latency", traceFrames: traceFrames))
            sentences.append(compare(here, limit: limit, metric: .memoryHitRate, name: "memory hit rate", traceFrames: traceFrames))
        }
        let strategies = cells.map { $0[0].cell.strategy }.reduce(into: [StrategyKind]()) { if !$0.contains($1) { $0.append($1) } }
        for strategy in strategies {
            let sweep = cells.filter { $0[0].cell.strategy == strategy }.sorted { $0[0].cell.concurrency < $1[0].cell.concurrency }
            guard let first = sweep.first, let last = sweep.last, sweep.count > 1 else { continue }
            let from = median(.display[.p95], first), to = median(.display[.p95], last)
            let beyond = BeyondNoise.winner(.display[.p95], [first, last], traceFrames: traceFrames) != nil
            sentences.append("\(strategy.rawValue): p95 display latency went from \(Format.milliseconds(from)) (\(n(first))) at a limit of "
                             + "\(first[0].cell.concurrency) to \(Format.milliseconds(to)) (\(n(last))) at \(last[0].cell.concurrency)"
                             + "\(change(from: from, to: to))" + (from == to ? "." : beyond ? ", beyond the noise." : noise(sweep)))
        }
        for runs in RunResult.byCell(results) where median(.hitchMsPerS, runs) >= 50 {
            sentences.append("\(runs[0].cell.strategy.rawValue) at \(runs[0].cell.concurrency) hitched "
                             + "\(String(format: "%.0f", median(.hitchMsPerS, runs))) ms per second of scrolling, above the 50 ms/s Apple calls critical.")
        }
        return sentences
    }

    static func compare(_ cells: [[RunResult]], limit: Int, metric: Metric, name: String, traceFrames: Int) -> String {
        let lowerIsBetter = metric.better != .higherIsBetter
        let ordered = cells.sorted { lowerIsBetter ? median(metric, $0) < median(metric, $1) : median(metric, $0) > median(metric, $1) }
        let show = { (runs: [RunResult]) in
            let value = median(metric, runs)
            return metric.unit == "ratio" ? Format.percent(value) : "\(Format.milliseconds(value)), \(n(runs))"
        }
        let values = Set(ordered.map { median(metric, $0) })
        guard values.count > 1 else {
            return "At a limit of \(limit), every strategy had the same \(name), \(show(ordered[0]))."
        }
        // Against the runner-up, not the worst: the choice a reader has to make.
        let best = ordered[0], runnerUp = ordered[1]
        guard BeyondNoise.winner(metric, cells, traceFrames: traceFrames) != nil else {
            return "At a limit of \(limit), no strategy's \(name) differed beyond the noise ("
                + ordered.map { "\($0[0].cell.strategy.rawValue) \(show($0))" }.joined(separator: "; ") + ")" + noise(cells)
        }
        let (bestValue, runnerUpValue) = (median(metric, best), median(metric, runnerUp))
        let gap = metric.unit == "ratio" ? String(format: "%.1f points above", (bestValue - runnerUpValue) * 100)
                                         : String(format: "%.0f%% below", (runnerUpValue - bestValue) / runnerUpValue * 100)
        return "At a limit of \(limit), \(best[0].cell.strategy.rawValue) had the \(lowerIsBetter ? "lowest" : "highest") \(name), "
            + "\(show(best)), \(gap) \(runnerUp[0].cell.strategy.rawValue) (\(show(runnerUp))), beyond the noise."
    }

    static func median(_ metric: Metric, _ runs: [RunResult]) -> Double {
        RepeatStatistics.median(of: runs.map { metric.number(of: $0.summary) ?? 0 })
    }

    /// The n of a display-latency percentile: the requests shown (per run, over repeats).
    static func n(_ runs: [RunResult]) -> String {
        "n = \(Int(median(.displayed, runs)))" + (runs.count > 1 ? " shown per run" : " shown")
    }

    /// Why a difference was not called: one run cannot tell, repeats say it is noise.
    static func noise(_ cells: [[RunResult]]) -> String {
        cells.contains { $0.count < 2 } ? "; one run each cannot tell (--repeat 3 can)." : ", over repeats."
    }

    static func change(from: Double, to: Double) -> String {
        guard from > 0, from != to else { return "" }
        return String(format: " (%+.0f%%)", (to - from) / from * 100)
    }
}
