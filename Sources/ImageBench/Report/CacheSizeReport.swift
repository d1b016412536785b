import Foundation

/// What the memory cache's size did and what another size would do (`CacheSizeCurve`): a line
/// for the terminal and the findings, a table per cell for report.md, and cache-curve.csv.
public struct CacheSizeReport: Sendable {
    let cells: [(name: String, runs: [RunResult], curve: CacheSizeCurve)]
    /// Every cell's requests together.
    let pooled: CacheSizeCurve
    let configuredBytes: Int
    /// False for crowds, whose runs keep no curve (`CacheSizeCurve.isRecorded`).
    let recorded: Bool

    public init(_ results: BenchmarkResults) {
        recorded = CacheSizeCurve.isRecorded(results.plan.settings)
        // With --memory-cache-mb as a list, the sentence speaks of the first size's cells: the hit
        // rate "today's size" had is that size's (each cell keeps its own curve in the tables).
        let first = String(results.plan.settings.memoryCacheBytes / 1_000_000)
        let atFirstSize = results.results.filter { ($0.cell.variant.values[.memoryCacheMB] ?? first) == first }
        cells = RunResult.byCell(atFirstSize).map { ($0[0].cell.name, $0, CacheSizeCurve($0)) }
        pooled = CacheSizeCurve(atFirstSize)
        configuredBytes = results.plan.settings.memoryCacheBytes
    }

    var configuredMegabytes: Int { configuredBytes / 1_000_000 }

    /// The measured memory hit rate of runs: their hits over their requests.
    static func measured(_ runs: [RunResult]) -> Double {
        let requests = runs.reduce(0) { $0 + $1.summary.requests }
        return requests > 0 ? Double(runs.reduce(0) { $0 + $1.summary.memoryHits }) / Double(requests) : 0
    }

    /// One sentence over every cell's requests; nil when no request was made.
    var sentence: String? {
        guard recorded, pooled.requests > 0 else { return nil }
        let all = cells.flatMap(\.runs)
        let lead = "Memory cache: \(configuredMegabytes) MB answered \(Format.percent(Self.measured(all))) of \(pooled.requests) requests"
        guard !pooled.isEmpty else {
            return lead + "; no request asked again for an image already loaded, so no size would answer more (the trace does not come back to rows)."
        }
        let smallest = pooled.smallestMegabytes()
        let verdict = smallest == 0 ? "a cache of any size answers almost nothing here (this trace seldom comes back to an image)"
            : smallest < configuredMegabytes
            ? "\(smallest) MB is the smallest within 1 point of that: the rest holds images not asked for again"
            : smallest == configuredMegabytes ? "\(smallest) MB, today's size, is the smallest within 1 point of that"
            : "it takes \(smallest) MB to come within 1 point of that"
        return lead + " (the curve from its lookups: \(Format.percent(pooled.hitRate(atBytes: configuredBytes)))). "
            + "No size answers more than \(Format.percent(pooled.bestHitRate)); \(verdict)."
    }

    public var text: String { sentence.map { $0 + "\n\n" } ?? "" }

    /// A table per cell: measured and predicted hit rate at today's size, the best, and the
    /// smallest size within 1 point of it.
    var markdown: String {
        guard let sentence else { return "" }
        var lines = ["## Memory cache size", "", sentence, "",
                     "| cell | requests | hit rate at \(configuredMegabytes) MB | curve at \(configuredMegabytes) MB | best (any size) | smallest within 1 point |",
                     "|---|---:|---:|---:|---:|---:|"]
        for cell in cells {
            let curve = cell.curve
            lines.append("| \(cell.name) | \(curve.requests) | \(Format.percent(Self.measured(cell.runs))) | "
                         + "\(Format.percent(curve.hitRate(atBytes: configuredBytes))) | \(Format.percent(curve.bestHitRate)) | "
                         + (curve.isEmpty ? "–" : "\(curve.smallestMegabytes()) MB") + " |")
        }
        return lines.joined(separator: "\n") + "\n\nThe curve: for each request, the smallest LRU cache that still held its image "
            + "(the cost of the images used since it was last used: Mattson's stack algorithm), from the run's own lookups; "
            + "cache-curve.csv has it at every size, report.html draws it.\n\n"
    }

    /// The sizes a curve is listed and drawn at: 0 to a little past both today's size and the
    /// largest useful one.
    var largestBytes: Int { max(configuredBytes, pooled.largestUsefulBytes, 1_000_000) * 11 / 10 }
}

/// `cache-curve.csv`: each cell's predicted memory hit rate at about 200 cache sizes, at a round
/// step from 0 to a little past today's size and the largest useful one, and at today's size
/// (`configured` 1).
struct CacheCurveCSV: ReportWriter {
    static let fileName = "cache-curve.csv"
    static let header = ["strategy", "concurrency", "format", "cache_mb", "memory_hit_rate", "configured"]

    init() {}

    func render(_ results: BenchmarkResults) throws -> String {
        let report = CacheSizeReport(results)
        guard report.recorded else { return CSVTable(header: Self.header).rendered }
        var table = CSVTable(header: Self.header)
        for cell in report.cells {
            let first = cell.runs[0]
            // A curve with no reuse is 0 at every size: today's size says it.
            var sizes = cell.curve.isEmpty ? [] : cell.curve.points(upTo: report.largestBytes).map(\.bytes)
            sizes.append(report.configuredBytes)
            for bytes in Set(sizes).sorted() {
                table.append([first.cell.strategy.rawValue, String(first.cell.concurrency), first.summary.format,
                              String(format: "%.3f", Double(bytes) / 1e6), String(format: "%.4f", cell.curve.hitRate(atBytes: bytes)),
                              bytes == report.configuredBytes ? "1" : "0"])
            }
        }
        return table.rendered
    }
}
