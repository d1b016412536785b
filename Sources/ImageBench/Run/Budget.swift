/// `--budget 3m`: instead of a fixed `--repeat`, spend a time budget where it decides something.
/// After the first round (every cell once), the verdict looks: the cells it has not told apart
/// from the leader run again on a new trace (the next session's scroll, the same for each of
/// them), interleaved, while the cells shown slower drop out (racing), until everything is
/// decided or the next round would pass the budget. Recorded in the plan, so a report written
/// again says what the budget bought.
///
/// A new trace per round, not the same one again: a repeat of a trace reproduces how a difference
/// varies along it, which is most of an interval's width (`SegmentMeans.segmentMeans`), while
/// another session's stretches and rests are new pairs.
///
/// Looking after every round and stopping on what was seen would make a 95% interval wrong more
/// often than 5%. So the most looks the budget could hold is fixed after the first round (`looks`:
/// as if every later round raced only two cells) and every interval and test, at every look and
/// in the report, is made at 5% / looks (Bonferroni): wider, and valid however the stopping went.
struct Budget: Sendable, Equatable, Codable {
    var seconds: Double
    /// The most looks the run could take, fixed after the first round (1 until then).
    var looks = 1
    /// Rounds run (the first included) and the wall time they took, from the run's start.
    var rounds = 0
    var spentSeconds = 0.0
    /// Why the race ended: "decided", "unranked" (no cell could be ranked), "budget", "looks",
    /// "stopped" (empty before it ran).
    var ended = ""
    /// What a round of the two quickest cells took in the first round (warm-ups included): the
    /// least a further round costs.
    var pairSeconds = 0.0

    init(seconds: Double) { self.seconds = seconds }

    /// Only the seconds are needed: a plan written before a field was added, or by hand, still reads.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seconds = try container.decode(Double.self, forKey: .seconds)
        looks = try container.decodeIfPresent(Int.self, forKey: .looks) ?? 1
        rounds = try container.decodeIfPresent(Int.self, forKey: .rounds) ?? 0
        spentSeconds = try container.decodeIfPresent(Double.self, forKey: .spentSeconds) ?? 0
        ended = try container.decodeIfPresent(String.self, forKey: .ended) ?? ""
        pairSeconds = try container.decodeIfPresent(Double.self, forKey: .pairSeconds) ?? 0
    }

    /// The error rate of each look's intervals and tests.
    var alpha: Double { 0.05 / Double(max(1, looks)) }
}

extension BenchmarkPlan {
    /// Which trace a measured run scrolls: the plan's own (0), or under a budget, round r's (the
    /// session r − 1 of user 0, `Workload.session`).
    func trace(ofRepetition repetition: Int) -> Int { budget == nil ? 0 : max(0, repetition - 1) }
}
