import Foundation

/// What the verdict says when the trace came to rest too seldom to rank by wait at rest: how many
/// rests there were, what each leading cell's rows waited at each, why that cannot decide, and the
/// command that would. (A five-second fling over 600 rows rests twice, on the first screen and at
/// the feed's end: however repeatable the waits, two rests are one coin toss short of a test.)
enum FewRests {
    /// Rests listed one by one at most; more are summed up.
    static let listed = 6

    static func line(best: Verdict.Cell, ranked: [Verdict.Cell], plan: BenchmarkPlan?) -> String? {
        guard best.rankedBy == .placeholder, let wait = best.restWait, wait.distinctSegments > 0 else { return nil }
        let count = wait.distinctSegments
        let cells = ranked.prefix(4).filter { $0.restWait != nil }
        let rests = Set(cells.flatMap { $0.restWait!.means.keys.map(\.segment) }).sorted()
        let each = rests.prefix(listed).enumerated().map { index, rest in
            let waits = cells.map { cell in "\(cell.name) " + (restMean(cell.restWait!, rest).map { String(format: "%.1f", $0) } ?? "–") }
            return "rest \(index + 1)\(label(index, of: rests.count)): " + waits.joined(separator: ", ") + " ms"
        }
        let more = rests.count > listed ? "; and \(rests.count - listed) more" : ""
        let single = RestComparison.floorTest(longer: count, shorter: 0, rests: count)
        return "Ranked by placeholder time: the trace came to rest \(count) time\(count == 1 ? "" : "s"), too few to rank by wait at rest "
            + "(at least \(RestMeans.minimumRests)): even a cell that waited longer at every one beyond one rest's noise would be "
            + String(format: "p = %.3f. ", single) + "The rows' mean wait at each: " + each.joined(separator: "; ") + more + ". "
            + "A longer trace rests more often and would decide: \(command(plan))."
    }

    /// " (the first screen)", " (the trace's end)", or nothing for a stop between.
    static func label(_ index: Int, of count: Int) -> String {
        index == 0 ? " (the first screen)" : index == count - 1 ? " (the trace's end)" : ""
    }

    /// A rest's wait in a cell, the mean over its repeats.
    static func restMean(_ means: SegmentMeans, _ rest: Int) -> Double? {
        let values = means.means.filter { $0.key.segment == rest }.map(\.value)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// The run's own command with a trace long enough to rest five times or more: a fling stops
    /// every 600–1,000 rows (`ScrollTrace`), so 3,000 rows rest about five times; the other
    /// profiles stop every few seconds, so the rows are what is short. Only the flags that differ
    /// from the defaults are said.
    static func command(_ plan: BenchmarkPlan?) -> String {
        guard let plan else { return "imgbench … --rows 3000, or --scroll browse" }
        var longer = plan
        longer.settings.rows = max(3_000, plan.settings.rows * 2)
        return "imgbench " + RunArguments.differing(longer).joined(separator: " ")
    }
}
