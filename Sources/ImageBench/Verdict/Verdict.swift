import Foundation

/// The recommendation a run ends with: among the valid cells, the one with the least placeholder
/// time paired over trace segments (the metric with the power: every request counts, and no
/// survivorship; `--rank-by rest-wait` ranks by wait at rest instead), ties broken by cost per
/// displayed image where costs differ beyond their own noise, or by asking for less (a smaller
/// limit, cache or prefetch that does as well), and why, in numbers with intervals. Its first line
/// recommends only what is better or cheaper beyond noise (`Decision`); the lines after it answer
/// each setting the run varied from its paired effects (`SettingAnswer`), so the first line never
/// names a cell those answers show worse. The terminal, report.md and report.html open with its lines.
///
/// A tie is an equivalence, not a failure to find a difference: the whole 95% interval of the
/// difference must lie within ±`tieMargin` (two one-sided tests). A difference whose interval
/// holds zero but reaches past the margin is undecided: the faster mean stands, and the text says
/// more runs would tell. (Taking "not shown different" for "the same" once recommended a limit
/// whose mean placeholder time was 2.3× the fastest's because it downloaded less.)
public struct Verdict: Sendable {
    /// The verdict of a whole benchmark.
    public init(_ results: BenchmarkResults) {
        self = results.atItsConfidence { Verdict(results.results, traceFrames: Self.traceFrames(results), plan: results.plan) }
    }

    /// One strategy × limit (× format) over its repeats.
    struct Cell: Sendable {
        let strategy: String
        let concurrency: Int
        /// summary.csv's `format` (`jpeg+png`, `avif`, …; empty for a --source that names none).
        let format: String
        let validity: CellValidity
        let placeholder: SegmentMeans
        let placeholderP95Ms: Double
        /// Wait at rest by rest (nil: no rest was recorded), and settle time p95 (median over repeats).
        let restWait: SegmentMeans?
        let settleP95Ms: Double
        /// What the verdict ranks this cell by (`Verdict.rankedBy`): wait at rest or placeholder time.
        var ranking: SegmentMeans
        var rankedBy = RankedMetric.placeholder
        /// Downloaded bytes and CPU seconds per displayed image (the tie-breakers).
        let bytesPerImage: Double
        let cpuPerImage: Double
        /// The same, run by run (the costs' noise, where there are repeats).
        var bytesPerRun: [Double] = []
        var cpuPerRun: [Double] = []
        let achievedPeak: Int
        let transport: String
        /// Measured runs (repeats) behind it.
        var runs = 1
        /// Decode time per megapixel of the file, p50 (the median over repeats; 0 without decodes).
        var decodeMsPerMp = 0.0

        /// The ranked metric's p95.
        var rankingP95Ms: Double { rankedBy == .restWait ? settleP95Ms : placeholderP95Ms }
        /// What the p95 beside the ranked mean is of.
        var rankingP95Name: String { rankedBy == .restWait ? "settle time p95" : "placeholder p95" }

        /// The varied policies' values (" cancel=none prefetch=10"), empty when none vary.
        var variant = ""
        var policies = PolicyVariant()
        /// Bytes downloaded in one run, the mean over repeats, in MB.
        var megabytesPerRun = 0.0

        var name: String { CellName.of(strategy: strategy, concurrency: concurrency, format: format) + variant }
        /// " with cancel=none prefetch=10", or nothing.
        var withVariant: String { variant.isEmpty ? "" : " with" + variant }
        /// " in avif", or nothing for the default mix.
        var inFormat: String { CellName.names(format) ? " in \(format)" : "" }
    }

    /// How firmly the data backs the leading cell: what the first line may say of it.
    enum Decision: String, Sendable {
        /// Less placeholder time than every other ranked cell beyond noise: "Recommended".
        case better
        /// Tied on placeholder time with others and cheaper than each beyond noise: "Recommended".
        case cheaper
        /// Tied with others on time and on cost: no cell is better; the first line says so.
        case tie
        /// Some other cell is neither shown slower nor shown the same: more runs would tell.
        case undecided
        /// The only cell that could be ranked: nothing to be better than.
        case alone
    }

    /// What the verdict ranks by (`--rank-by`). Placeholder time by default: every request counts,
    /// paired over 20 stretches of the trace, it decides where wait at rest has the 3–6 rests a
    /// fling gives (a run once ranked 1 against 8 by four rests and called them open, at twice the
    /// placeholder time). Wait at rest measures what a user waits for once the scroll stops, which
    /// placeholder time on a fling cannot (a row that flies by is capped at its few frames on
    /// screen): asked for, it ranks where every ranked cell's trace had enough rests to pair.
    enum RankedMetric: String, Sendable {
        case restWait = "wait at rest"
        case placeholder = "placeholder time"

        /// What its paired test pairs: the same rests, or the same stretches of the trace.
        var pairs: String { self == .restWait ? "rests" : "trace segments" }
        /// What its n counts.
        var counts: String { self == .restWait ? "rests" : "requests" }
    }

    let rankedBy: RankedMetric
    /// What `--rank-by` asked for (wait at rest falls back to placeholder time on too few rests).
    let rankByAsked: RankedMetric
    let cells: [Cell]
    /// The answer to each setting the run varied (strategy, limit, format, a listed policy).
    let answers: [SettingAnswer]
    /// The leading cell (the one the lines speak for); nil when no cell could be ranked. Called a
    /// recommendation only where `decision` is `better` or `cheaper`.
    let recommended: Cell?
    let decision: Decision?
    /// The fastest valid cell, and the cells neither tied with it nor shown slower than it: what
    /// keeps the decision undecided (and what `--budget` runs again).
    let fastest: Cell?
    let open: [Cell]
    /// The smallest limit of the recommended strategy within noise of the recommendation.
    let knee: Cell?
    public let lines: [String]
    /// The lines that open `lines`: each cell over `--max-error-rate`, not ranked, and why.
    public let errorLines: [String]
    /// The verdict after its error lines: what a load test prints after its load summary.
    public var appLines: [String] { Array(lines.dropFirst(errorLines.count)) }

    /// `traceFrames`: the trace's length in frames, for cutting it into segments; `plan`: the run's,
    /// to name a command that would decide what this one cannot.
    init(_ results: [RunResult], traceFrames: Int, plan: BenchmarkPlan? = nil, rankBy: RankBy? = nil) {
        let measured = RunResult.byCell(results).map { Self.cell($0, traceFrames: traceFrames) }
        // Errors first: a cell whose requests failed over --max-error-rate opens the verdict.
        let errors = RunResult.byCell(results).compactMap { runs in
            ErrorLimit.exceeded(ErrorTotals(runs.map(\.summary))).map { "\(runs[0].cell.name): not ranked: \($0)" + ($0.hasSuffix("?") ? "" : ".") }
        }
        errorLines = errors
        let valid = measured.filter(\.validity.isValid)
        let asked: RankedMetric = (rankBy ?? plan?.rankBy) == .restWait ? .restWait : .placeholder
        let metric: RankedMetric = asked == .restWait && !valid.isEmpty && valid.allSatisfy { ($0.restWait?.distinctSegments ?? 0) >= RestMeans.minimumRests }
            ? .restWait : .placeholder
        rankedBy = metric
        rankByAsked = asked
        cells = measured.map { cell in
            var cell = cell
            if metric == .restWait, let wait = cell.restWait { (cell.ranking, cell.rankedBy) = (wait, .restWait) }
            return cell
        }
        let ranked = cells.filter(\.validity.isValid).sorted { $0.ranking.overall < $1.ranking.overall }
        guard let fastest = ranked.first else {
            answers = []
            (self.fastest, open) = (nil, [])
            recommended = nil
            decision = nil
            knee = nil
            let reasons = cells.map { "\($0.name): \($0.validity)" }.joined(separator: "; ")
            lines = errors + ["Verdict: could not measure: no cell can be ranked (\(reasons))."]
                + (plan?.budget.flatMap { BudgetText.line($0, results: results) }.map { [$0] } ?? [])
            return
        }
        // In the order the run named them: the first value of each setting is what the others are said against.
        let inRunOrder = cells.filter(\.validity.isValid)
        let axes = SettingAxis.varied(in: inRunOrder)
        // Equivalent to the fastest within the margin, or asking for less and no slower than it by
        // more than the margin: as good a choice, as far as this run can tell. Costs that differ by
        // less than their own noise do not decide among them: then the faster stays, unless
        // another asks for less (a smaller limit or cache that does as well).
        let tied = ranked.filter { cell in
            cell.name == fastest.name || Self.equivalent(fastest, cell) || Self.asGoodForLess(cell, than: fastest, axes: axes)
        }
        let best = tied.dropFirst().reduce(tied[0]) { best, cell in Self.preferred(cell, over: best, axes: axes) ? cell : best }
        recommended = best
        answers = SettingAnswer.answers(inRunOrder)
        // Larger settings the choice is as good as, for less: what they might buy is within the margin.
        let outbid = ranked.filter { cell in
            !tied.contains { $0.name == cell.name } && !Self.shownSlower(cell, than: best) && Self.asGoodForLess(best, than: cell, axes: axes)
        }
        // A cell outside these not shown slower than the fastest leaves the question open.
        var open = ranked.filter { cell in
            !(tied + outbid).contains { $0.name == cell.name } && !Self.shownSlower(cell, than: fastest)
        }
        var decision = Self.decide(best: best, ranked: ranked, tied: tied + outbid, open: open, axes: axes)
        // The first line names a cell only where every setting's answer names its values: where
        // one does not (a tie judged against the fastest, not the choice), the question stays open.
        if decision == .better || decision == .cheaper {
            let disputed = SettingAnswer.disputing(best, answers, axes: axes)
            if !disputed.isEmpty {
                open += disputed.filter { cell in !open.contains { $0.name == cell.name } }
                decision = .undecided
            }
        }
        (self.fastest, self.open, self.decision) = (fastest, open, decision)
        let sweep = ranked.filter { $0.strategy == best.strategy && $0.format == best.format && $0.variant == best.variant }.sorted { $0.concurrency < $1.concurrency }
        knee = sweep.first { $0.name == best.name || Self.equivalent(best, $0) || Self.asGoodForLess($0, than: best, axes: axes) }
        lines = errors + Self.explain(best: best, decision: decision, ranked: ranked, tied: tied + outbid, open: open, knee: knee, all: cells, plan: plan,
                                      answers: answers, axes: axes, asked: asked)
            + Effects(results, traceFrames: traceFrames).lines
            + (plan?.budget.flatMap { BudgetText.line($0, results: results) }.map { [$0] } ?? [])
    }

    /// Better beyond noise, cheaper beyond noise, a tie, undecided, or alone.
    static func decide(best: Cell, ranked: [Cell], tied: [Cell], open: [Cell], axes: [SettingAxis] = []) -> Decision {
        guard ranked.count > 1 else { return .alone }
        if !open.isEmpty { return .undecided }
        guard tied.count > 1 else { return .better }
        return tied.allSatisfy { $0.name == best.name || preferred(best, over: $0, axes: axes) } ? .cheaper : .tie
    }

    /// `cell` asks for less than `other` (`SettingAxis.asksLess`) and is not slower than it by more
    /// than a tie's margin (the upper bound of its paired difference): what `other` might buy
    /// beyond it is too little to pay for. One-sided, so a smaller cache that leads a larger one
    /// by a hair is the answer without a run long enough to show the two equal both ways.
    static func asGoodForLess(_ cell: Cell, than other: Cell, axes: [SettingAxis]) -> Bool {
        guard SettingAxis.asksLess(cell, than: other, axes: axes), let difference = cell.ranking.difference(from: other.ranking) else { return false }
        return difference.high <= tieMargin(fastestOf(cell, other))
    }

    /// Of two cells tied on time, `cell` is the better choice: cheaper beyond the costs' noise, or
    /// asking for less (`SettingAxis.asksLess`) without costing more beyond it.
    static func preferred(_ cell: Cell, over other: Cell, axes: [SettingAxis]) -> Bool {
        cheaper(cell, than: other) || SettingAxis.asksLess(cell, than: other, axes: axes) && !cheaper(other, than: cell)
    }

    /// `cell` is slower than `reference` beyond noise: its paired interval lies above zero, or,
    /// ranked by wait at rest, it waited longer at more rests beyond chance (the rest test,
    /// `RestComparison`) while the interval does not say it is faster.
    static func shownSlower(_ cell: Cell, than reference: Cell) -> Bool {
        guard let difference = cell.ranking.difference(from: reference.ranking) else { return false }
        if difference.low > 0 { return true }
        guard cell.rankedBy == .restWait, difference.high >= 0 else { return false }
        return RestComparison(cell.ranking, reference.ranking)?.showsLonger ?? false
    }

    /// Frames of the scroll trace: where its segments are cut.
    static func traceFrames(_ results: BenchmarkResults) -> Int {
        Int((results.traceSeconds * Double(results.plan.settings.fps)).rounded())
    }

    /// Costs per displayed image from one run each differing by under these shares are the same
    /// cost: the same configuration under two names (operation-queue and gcd ×5, five seeds) differed
    /// by up to 4.6% in bytes (cancellations land a frame apart) and 25% in CPU (0.6 against 0.8 ms) (the process's CPU
    /// time takes in other threads, the allocator, the kernel). With three repeats or more a side,
    /// the repeats measure the noise instead (`CostNoise`).
    static let bytesTolerance = 0.10
    static let cpuTolerance = 0.35

    /// `cell` costs less than `other` beyond the costs' noise: fewer bytes, else (bytes alike) less CPU.
    static func cheaper(_ cell: Cell, than other: Cell) -> Bool {
        let bytes = CostNoise.compare(cell.bytesPerRun, other.bytesPerRun, tolerance: bytesTolerance)
        if bytes != 0 { return bytes < 0 }
        return CostNoise.compare(cell.cpuPerRun, other.cpuPerRun, tolerance: cpuTolerance) < 0
    }

    /// How close two mean placeholder times must be shown to be for a tie: a tenth of the
    /// reference's mean, and at least 1 ms (below that no user can tell).
    static func tieMargin(_ reference: Cell) -> Double { max(1, 0.1 * reference.ranking.overall) }

    /// True when the 95% interval of `cell`'s difference from `reference` lies within ±tieMargin.
    /// Cells that cannot be compared (too few segments) are not equivalent.
    static func equivalent(_ reference: Cell, _ cell: Cell) -> Bool {
        guard let difference = cell.ranking.difference(from: reference.ranking) else { return false }
        let margin = tieMargin(reference)
        return difference.low >= -margin && difference.high <= margin
    }

    static func cell(_ runs: [RunResult], traceFrames: Int) -> Cell {
        let summaries = runs.map(\.summary)
        let displayed = Double(max(1, summaries.map(\.displayed).reduce(0, +)))
        let placeholder = SegmentMeans(placeholdersOf: runs, traceFrames: traceFrames)
        var cell = Cell(strategy: summaries[0].strategy, concurrency: summaries[0].concurrency, format: summaries[0].format,
                    validity: CellValidity(summaries),
                    placeholder: placeholder,
                    placeholderP95Ms: RepeatStatistics.median(of: summaries.map(\.placeholder.p95)),
                    restWait: RestMeans.of(runs), settleP95Ms: RepeatStatistics.median(of: summaries.map(\.settle.p95)), ranking: placeholder,
                    bytesPerImage: Double(summaries.map(\.bytesDownloaded).reduce(0, +)) / displayed,
                    cpuPerImage: summaries.map { $0.cpuUserS + $0.cpuSysS }.reduce(0, +) / displayed,
                    achievedPeak: summaries.map(\.achievedConcurrencyPeak).max() ?? 0, transport: summaries[0].transport)
        cell.runs = summaries.count
        // A run that showed nothing has no cost per shown image (its total is no such cost).
        let shown = summaries.filter { $0.displayed > 0 }
        cell.bytesPerRun = shown.map { Double($0.bytesDownloaded) / Double($0.displayed) }
        cell.cpuPerRun = shown.map { ($0.cpuUserS + $0.cpuSysS) / Double($0.displayed) }
        cell.variant = runs[0].cell.variant.suffix
        cell.policies = runs[0].cell.variant
        cell.megabytesPerRun = Double(summaries.map(\.bytesDownloaded).reduce(0, +)) / Double(summaries.count) / 1e6
        cell.decodeMsPerMp = RepeatStatistics.median(of: summaries.map(\.decodeMsPerMp.p50))
        return cell
    }
}
