/// A plan as the short command a person would type: only the flags whose values differ from the
/// defaults' (the verdict names a command that would decide what a run could not).
extension RunArguments {
    static func differing(_ plan: BenchmarkPlan) -> [String] {
        let mine = groups(RunArguments(plan).words)
        guard let defaults = try? RunOptions().plan() else { return mine.flatMap { $0 } }
        let usual = Set(groups(RunArguments(defaults).words))
        return mine.filter { !usual.contains($0) }.flatMap { $0 }
    }

    /// `imgbench …` as one line a shell takes back word for word.
    static func shellCommand(_ plan: BenchmarkPlan) -> String {
        (["imgbench"] + differing(plan)).map(ShellWords.quoted).joined(separator: " ")
    }

    /// Words grouped as the parser reads them: a flag with its value, a switch alone (by the
    /// catalog's kind, so a value that begins with dashes stays with its flag).
    static func groups(_ words: [String]) -> [[String]] {
        var groups: [[String]] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            let name = String(word.dropFirst(2))
            // A bare-capable option (`--coalesce`) has a value only where the parser would take one.
            let flag = RunFlag.named(name)
            let takesValue = flag.map { $0.kind != .flag && ($0.bare == nil || (index < words.count && !words[index].hasPrefix("-"))) } ?? false
            if takesValue && index < words.count {
                groups.append([word, words[index]])
                index += 1
            } else {
                groups.append([word])
            }
        }
        return groups
    }
}
