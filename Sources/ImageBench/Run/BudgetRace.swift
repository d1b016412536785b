import Foundation

/// `--budget`'s rounds after the first (`Budget`): look, keep the cells still open against the
/// leader, run them on the next round's trace, look again, until the verdict decides, the budget
/// would be passed, or the looks fixed after the first round are used.
enum BudgetRace {
    /// `measure` runs one cell (warm-up included) and gives its result, or nil when stopped.
    /// `cellSeconds`: each cell's wall time in the first round, by name: what a next round costs.
    static func run(_ plan: inout BenchmarkPlan, results: inout [RunResult], startedAt: UInt64, cellSeconds: [String: Double],
                    traceFrames: Int, stop: StopRequest?, observer: (any BenchmarkObserver)?,
                    measure: (RunCell) -> RunResult?) {
        guard var budget = plan.budget else { return }
        let deadline = Double(startedAt) / 1e9 + budget.seconds
        func now() -> Double { Double(MonotonicClock().now()) / 1e9 }
        // The most looks the rest of the budget could hold: rounds of the two quickest cells (the
        // fewest a comparison needs), plus the look after the first round. Fixed here, before any
        // look, so the split of the error rate cannot depend on what the looks saw.
        let pair = cellSeconds.values.sorted().prefix(2).reduce(0, +)
        budget.pairSeconds = pair
        budget.looks = 1 + (pair > 0 ? min(99, Int(max(0, deadline - now()) / pair)) : 0)
        budget.rounds = 1
        for look in 1...budget.looks {
            let open = ErrorLimit.$maxRate.withValue(plan.errorLimit) {
                Confidence.$alpha.withValue(budget.alpha) { contenders(results, traceFrames: traceFrames, plan: plan) }
            }
            guard let open, look < budget.looks else {
                // Open at the last look: with one look, the budget never had room for a second round.
                let ranked = ErrorLimit.$maxRate.withValue(plan.errorLimit) { results.contains { CellValidity([$0.summary]).isValid } }
                budget.ended = open == nil ? (ranked ? "decided" : "unranked") : budget.looks == 1 ? "budget" : "looks"
                break
            }
            let cost = open.reduce(0) { $0 + (cellSeconds[$1.name] ?? 0) }
            guard now() + cost <= deadline else { budget.ended = "budget"; break }
            let round = budget.rounds + 1
            observer?.preparing("--budget: round \(round) on a new trace for \(open.map(\.name).joined(separator: ", ")) "
                                + String(format: "(%.0f s of the budget left)", deadline - now()))
            for cell in open where stop?.isRequested != true {
                var next = cell
                (next.repetition, next.trace) = (round, plan.trace(ofRepetition: round))
                if let result = measure(next) { results.append(result) }
            }
            if stop?.isRequested == true { budget.ended = "stopped"; break }
            budget.rounds = round
        }
        budget.spentSeconds = now() - Double(startedAt) / 1e9
        plan.budget = budget
    }

    /// The cells to run again: the fastest and the verdict's open cells (neither shown slower than
    /// it nor tied with it); nil when nothing is open (decided, or nothing to rank).
    static func contenders(_ results: [RunResult], traceFrames: Int, plan: BenchmarkPlan) -> [RunCell]? {
        let verdict = Verdict(results, traceFrames: traceFrames, plan: plan)
        guard verdict.decision == .undecided, let leader = verdict.fastest else { return nil }
        let names = Set(([leader] + verdict.open).map(\.name))
        // In the plan's order (interleaved as the first round was), one of each.
        var seen = Set<String>()
        return results.map(\.cell).filter { names.contains($0.name) && seen.insert($0.name).inserted }
    }
}
