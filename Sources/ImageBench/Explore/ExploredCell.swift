/// One point of the explored space: a concurrency limit and a value of each varied policy.
struct ExploredChoice: Sendable, Hashable {
    let concurrency: Int
    let variant: PolicyVariant

    /// `×4 cancel=none prefetch=10`.
    var name: String { "×\(concurrency)" + variant.suffix }

    /// `--concurrency 4 --cancel none --prefetch 10`: what to type to run it.
    var flags: String {
        (["--concurrency \(concurrency)"] + variant.values.keys.sorted().map { "\($0.flag) \(variant.values[$0]!)" }).joined(separator: " ")
    }

    /// `plan` narrowed to this one cell (no list left in it).
    func plan(from plan: BenchmarkPlan) -> BenchmarkPlan {
        var narrowed = plan
        narrowed.settings = variant.applied(to: plan.settings)
        narrowed.concurrencies = [concurrency]
        narrowed.variations = []
        return narrowed
    }
}

/// What a cell did, as the verdict judges it (its ranked metric, with the interval a real run's
/// trace segments give) and as the model is checked (request sources, bytes).
struct ExploredCell: Sendable {
    let choice: ExploredChoice
    /// Valid and so ranked (a real cell can be overloaded or over its error limit).
    let ranked: Bool
    /// Why not, when not.
    let invalidReason: String?
    /// The verdict's ranked metric (wait at rest or placeholder time), its mean in ms.
    let meanMs: Double
    /// Its 95% interval where the runs give one (a real run's; nil for the model's).
    let interval: Interval?
    let rankedBy: Verdict.RankedMetric
    let bytesPerImage: Double
    let megabytesDown: Double
    let memoryHits: Int
    let networkFetches: Int
    let merged: Int
    let requests: Int

    /// Every cell of `results`, named by its choice in the space (`plan`'s varied policies).
    static func all(_ results: BenchmarkResults) -> [ExploredCell] {
        results.atItsConfidence {
            let verdict = Verdict(results)
            return RunResult.byCell(results.results).compactMap { runs -> ExploredCell? in
                let name = runs[0].cell.name
                guard let judged = verdict.cells.first(where: { $0.name == name }) else { return nil }
                let summaries = runs.map(\.summary)
                func median(_ value: (RunSummary) -> Int) -> Int { Int(RepeatStatistics.median(of: summaries.map { Double(value($0)) })) }
                return ExploredCell(choice: ExploredChoice(concurrency: runs[0].cell.concurrency, variant: runs[0].cell.variant),
                                    ranked: judged.validity.isValid, invalidReason: judged.validity.isValid ? nil : judged.validity.description,
                                    meanMs: judged.ranking.overall, interval: results.plan.settings.isVirtual ? nil : judged.ranking.interval,
                                    rankedBy: judged.rankedBy, bytesPerImage: judged.bytesPerImage,
                                    megabytesDown: Double(median(\.bytesDownloaded)) / 1e6, memoryHits: median(\.memoryHits),
                                    networkFetches: median(\.networkFetches), merged: median(\.merged), requests: median(\.requests))
            }
        }
    }
}
