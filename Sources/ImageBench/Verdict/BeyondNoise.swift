/// Whether one cell beats the others beyond the noise: the one test behind the table's stars
/// and the findings' "had the lowest …", so neither names a winner the data does not support.
enum BeyondNoise {
    /// The cell whose value of `metric` is better than every other's beyond the noise, or nil (a
    /// tie, or no way to tell). Mean placeholder time: a paired t over the trace's segments shows
    /// every other cell slower. Other columns: over repeats, the best cell's 95% interval lies
    /// wholly on the better side of every other cell's; with one run per cell, nothing is known.
    static func winner(_ metric: Metric, _ cells: [[RunResult]], traceFrames: Int) -> RunCell? {
        if metric.name == Metric.placeholder[.mean].name {
            let means = cells.map { SegmentMeans(placeholdersOf: $0, traceFrames: traceFrames) }
            let fastest = means.indices.min { means[$0].overall < means[$1].overall }!
            let clear = means.indices.allSatisfy { other in
                other == fastest || (means[other].difference(from: means[fastest]).map { $0.low > 0 } ?? false)
            }
            return clear ? cells[fastest][0].cell : nil
        }
        guard cells.allSatisfy({ $0.count > 1 }), let better = metric.better else { return nil }
        let estimates = cells.map { runs in RepeatStatistics.median(runs.map { metric.number(of: $0.summary) ?? 0 }) }
        let lower = better == .lowerIsBetter
        let leader = estimates.indices.min { lower ? estimates[$0].median < estimates[$1].median : estimates[$0].median > estimates[$1].median }!
        let clear = estimates.indices.allSatisfy { other in
            other == leader || (lower ? estimates[leader].high < estimates[other].low : estimates[leader].low > estimates[other].high)
        }
        return clear ? cells[leader][0].cell : nil
    }
}
