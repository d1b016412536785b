import Foundation

/// The recommendation a run ends with: the strategy and limit with the least placeholder time
/// among the valid cells, ties broken by cost per displayed image where costs differ beyond their
/// own noise, the smallest limit that does as well, and why, in numbers with intervals. The
/// terminal, report.md and report.html open with its lines.
///
/// A tie is an equivalence, not a failure to find a difference: the whole 95% interval of the
/// difference must lie within ±`tieMargin` (two one-sided tests). A difference whose interval
/// holds zero but reaches past the margin is undecided: the faster mean stands, and the text says
/// more runs would tell. (Taking "not shown different" for "the same" once recommended a limit
/// whose mean placeholder time was 2.3× the fastest's because it downloaded less.)
public struct Verdict: Sendable {
    /// The verdict of a whole benchmark.
    public init(_ results: BenchmarkResults) {
        self.init(results.results, traceFrames: Self.traceFrames(results))
    }

    /// One strategy × limit (× format) over its repeats.
    public struct Cell: Sendable {
        public let strategy: String
        public let concurrency: Int
        /// summary.csv's `format` (`jpeg+png`, `avif`, …; empty for a --source that names none).
        public let format: String
        public let validity: CellValidity
        public let placeholder: SegmentMeans
        public let placeholderP95Ms: Double
        /// Downloaded bytes and CPU seconds per displayed image (the tie-breakers).
        public let bytesPerImage: Double
        public let cpuPerImage: Double
        public let achievedPeak: Int
        public let transport: String
        /// Measured runs (repeats) behind it.
        public var runs = 1
        /// Decode time per megapixel of the file, p50 (the median over repeats; 0 without decodes).
        public var decodeMsPerMp = 0.0

        public var name: String { CellName.of(strategy: strategy, concurrency: concurrency, format: format) }
        /// " in avif", or nothing for the default mix.
        var inFormat: String { CellName.names(format) ? " in \(format)" : "" }
    }

    public let cells: [Cell]
    /// Nil when no cell could be ranked.
    public let recommended: Cell?
    /// The smallest limit of the recommended strategy within noise of the recommendation.
    public let knee: Cell?
    public let lines: [String]

    /// `traceFrames`: the trace's length in frames, for cutting it into segments.
    public init(_ results: [RunResult], traceFrames: Int) {
        cells = RunResult.byCell(results).map { Self.cell($0, traceFrames: traceFrames) }
        let ranked = cells.filter(\.validity.isValid).sorted { $0.placeholder.overall < $1.placeholder.overall }
        guard let fastest = ranked.first else {
            recommended = nil
            knee = nil
            let reasons = cells.map { "\($0.name): \($0.validity)" }.joined(separator: "; ")
            lines = ["Verdict: could not measure: no cell can be ranked (\(reasons))."]
            return
        }
        // Equivalent to the fastest within the margin: the same, as far as this run can tell; the cheapest wins.
        let tied = ranked.filter { $0.name == fastest.name || Self.equivalent(fastest, $0) }
        // Costs that differ by less than their own noise do not decide either: then the faster stays.
        let best = tied.dropFirst().reduce(tied[0]) { best, cell in Self.cheaper(cell, than: best) ? cell : best }
        recommended = best
        let sweep = ranked.filter { $0.strategy == best.strategy && $0.format == best.format }.sorted { $0.concurrency < $1.concurrency }
        knee = sweep.first { $0.name == best.name || $0.placeholder.overall <= best.placeholder.overall || Self.equivalent(best, $0) }
        lines = Self.explain(best: best, ranked: ranked, tied: tied, knee: knee, all: cells)
    }

    /// Frames of the scroll trace: where its segments are cut.
    static func traceFrames(_ results: BenchmarkResults) -> Int {
        Int((results.traceSeconds * Double(results.plan.settings.fps)).rounded())
    }

    /// Bytes per image differing by under this share are the same cost (cancellations move them a little).
    static let bytesTolerance = 0.02
    /// CPU per image differing by under this share is the same cost: the process's CPU time is
    /// noisy (other threads, the allocator, the kernel), and a report read back from the data
    /// files must choose as the run did.
    static let cpuTolerance = 0.10

    /// `cell` costs less than `other` beyond the costs' noise: fewer bytes, else (bytes alike) less CPU.
    static func cheaper(_ cell: Cell, than other: Cell) -> Bool {
        func differs(_ a: Double, _ b: Double, by share: Double) -> Bool { abs(a - b) > share * max(a, b) }
        if differs(cell.bytesPerImage, other.bytesPerImage, by: bytesTolerance) { return cell.bytesPerImage < other.bytesPerImage }
        return differs(cell.cpuPerImage, other.cpuPerImage, by: cpuTolerance) && cell.cpuPerImage < other.cpuPerImage
    }

    /// How close two mean placeholder times must be shown to be for a tie: a tenth of the
    /// reference's mean, and at least 1 ms (below that no user can tell).
    static func tieMargin(_ reference: Cell) -> Double { max(1, 0.1 * reference.placeholder.overall) }

    /// True when the 95% interval of `cell`'s difference from `reference` lies within ±tieMargin.
    /// Cells that cannot be compared (too few segments) are not equivalent.
    static func equivalent(_ reference: Cell, _ cell: Cell) -> Bool {
        guard let difference = cell.placeholder.difference(from: reference.placeholder) else { return false }
        let margin = tieMargin(reference)
        return difference.low >= -margin && difference.high <= margin
    }

    static func cell(_ runs: [RunResult], traceFrames: Int) -> Cell {
        let summaries = runs.map(\.summary)
        let displayed = Double(max(1, summaries.map(\.displayed).reduce(0, +)))
        var cell = Cell(strategy: summaries[0].strategy, concurrency: summaries[0].concurrency, format: summaries[0].format,
                    validity: CellValidity(summaries),
                    placeholder: SegmentMeans(placeholdersOf: runs, traceFrames: traceFrames),
                    placeholderP95Ms: RepeatStatistics.median(of: summaries.map(\.placeholderP95Ms)),
                    bytesPerImage: Double(summaries.map(\.bytesDownloaded).reduce(0, +)) / displayed,
                    cpuPerImage: summaries.map { $0.cpuUserS + $0.cpuSysS }.reduce(0, +) / displayed,
                    achievedPeak: summaries.map(\.achievedConcurrencyPeak).max() ?? 0, transport: summaries[0].transport)
        cell.runs = summaries.count
        cell.decodeMsPerMp = RepeatStatistics.median(of: summaries.map(\.decodeMsPerMpP50))
        return cell
    }
}
