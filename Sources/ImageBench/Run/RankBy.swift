/// What the verdict ranks cells by (`--rank-by`): placeholder time paired over trace segments, the
/// metric with the power on every scroll profile (the default), or the rows' wait once the scroll
/// comes to rest, where a trace rests often enough to pair (`Verdict.RankedMetric`).
enum RankBy: String, Sendable, Codable, CaseIterable {
    case placeholder
    case restWait = "rest-wait"
}
