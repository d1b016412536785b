import Foundation

/// What the verdict says when the trace came to rest too seldom to rank by wait at rest: how many
/// rests there were, what each leading cell's rows waited at each, why that cannot decide, and the
/// command that would. (A five-second fling over 600 rows rests twice, on the first screen and at
/// the feed's end: however repeatable the waits, two rests are one coin toss short of a test.)
enum FewRests {
    /// Rests listed one by one at most; more are summed up.
    static let listed = 6

    static func line(best: Verdict.Cell, ranked: [Verdict.Cell], plan: BenchmarkPlan?) -> String? {
        // The fewest rests of any ranked cell: the one that made the verdict rank by placeholder time.
        let counts = ranked.map { $0.restWait?.distinctSegments ?? 0 }
        guard best.rankedBy == .placeholder, let count = counts.min(), count > 0, count < RestMeans.minimumRests else { return nil }
        let cells = ranked.prefix(4).filter { $0.restWait != nil }
        let rests = Set(cells.flatMap { $0.restWait!.means.keys.map(\.segment) }).sorted()
        let traces = Set(rests.map(Key.init).map(\.trace)).count
        let each = rests.prefix(listed).enumerated().map { index, rest in
            let waits = cells.map { cell in "\(cell.name) " + (restMean(cell.restWait!, rest).map { String(format: "%.1f", $0) } ?? "–") }
            return "rest \(index + 1)\(label(rest, among: rests, traces: traces)): " + waits.joined(separator: ", ") + " ms"
        }
        let more = rests.count > listed ? "; and \(rests.count - listed) more" : ""
        let single = RestComparison.floorTest(longer: count, shorter: 0, rests: count)
        return "Ranked by placeholder time: the trace came to rest \(count) time\(count == 1 ? "" : "s"), too few to rank by wait at rest "
            + "(at least \(RestMeans.minimumRests)): even a cell that waited longer at every one beyond one rest's noise would be "
            + String(format: "p = %.3f. ", single) + "The rows' mean wait at each: " + each.joined(separator: "; ") + more + ". "
            + "More trace rests more often and would decide: \(command(plan))."
    }

    /// A rest's number (`RestMeans.number`) read back: whose trace, and its place in it.
    struct Key {
        let client: Int, session: Int, rest: Int
        var trace: Int { client * 1_000_000 + session }
        init(_ number: Int) { (client, session, rest) = (number / 1_000_000_000_000, number / 1_000_000 % 1_000_000, number % 1_000_000) }
    }

    /// " (the first screen)", " (the trace's end)", or nothing for a stop between; with several
    /// users or sessions, whose trace it is.
    static func label(_ number: Int, among all: [Int], traces: Int) -> String {
        let key = Key(number)
        let last = all.map(Key.init).filter { $0.trace == key.trace }.map(\.rest).max()
        var parts: [String] = []
        if traces > 1 { parts.append("user \(key.client + 1), session \(key.session + 1)") }
        if key.rest == 0 { parts.append("the first screen") } else if key.rest == last { parts.append("the trace's end") }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ": ") + ")"
    }

    /// A rest's wait in a cell, the mean over its repeats.
    static func restMean(_ means: SegmentMeans, _ rest: Int) -> Double? {
        let values = means.means.filter { $0.key.segment == rest }.map(\.value)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// A command that gives the verdict more trace: the run's own flags with `--budget 5m` (new
    /// traces for the cells still open), or where a fling ran to the feed's end, with twice the
    /// rows (at least 3,000: a fling stops every 600–1,000 rows, `ScrollTrace`). The other profiles
    /// stop at a time (a minute, 40 s), so more rows alone would not lengthen them. The feed's
    /// images are pinned, so more rows do not change which images it shows. Only the flags that
    /// differ from the defaults are said.
    static func command(_ plan: BenchmarkPlan?) -> String {
        guard var longer = plan else { return "imgbench … --rows 3000, or --budget 5m" }
        let oneUser = longer.settings.clients == 1 && longer.settings.load == nil && longer.settings.shard == nil
        var options: [String] = []
        if longer.settings.scroll == .fling && longer.settings.rows < FlagRanges.rows.upperBound {
            var rows = longer
            rows.settings.imageCount = rows.settings.imageCount ?? rows.settings.resolvedImageCount
            rows.settings.rows = min(FlagRanges.rows.upperBound, max(3_000, rows.settings.rows * 2))
            options.append(RunArguments.shellCommand(rows))
        }
        // A virtual run has no noise to race, and refuses --budget.
        if oneUser && !longer.settings.isVirtual {
            longer.repeats = 1
            longer.budget = Budget(seconds: 300)
            options.append(RunArguments.shellCommand(longer))
        }
        return options.isEmpty ? "a longer session (more rows or another profile)" : options.joined(separator: ", or ")
    }
}
