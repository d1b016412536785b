/// A plan as the short command a person would type: only the flags whose values differ from the
/// defaults' (the verdict names a command that would decide what a run could not).
extension RunArguments {
    public static func differing(_ plan: BenchmarkPlan) -> [String] {
        let mine = pairs(RunArguments(plan).words)
        guard let defaults = try? RunOptions().plan() else { return mine.flatMap { $0 } }
        let usual = Set(pairs(RunArguments(defaults).words).map { $0.joined(separator: " ") })
        return mine.filter { !usual.contains($0.joined(separator: " ")) }.flatMap { $0 }
    }

    /// Words grouped as flags with their values (`--rows 600`; a switch such as `--no-decode` alone).
    static func pairs(_ words: [String]) -> [[String]] {
        var groups: [[String]] = []
        for word in words {
            if word.hasPrefix("--") || groups.isEmpty { groups.append([word]) } else { groups[groups.count - 1].append(word) }
        }
        return groups
    }
}
