/// The name a mistyped one most likely meant (`rwos` → `rows`, `placeholder_mean` → `placeholder_mean_ms`):
/// one rule for flags and metrics, so every typo gets the same help.
enum Spelling {
    /// The closest of `names` within a few edits (a quarter of the name, at least two), or, failing
    /// that, the one name that begins with what was typed.
    static func closest(to name: String, among names: [String]) -> String? {
        let scored = names.map { ($0, editDistance(Array(name), Array($0))) }.min { $0.1 < $1.1 }
        if let (best, distance) = scored, distance <= max(2, name.count / 4) { return best }
        let extended = names.filter { $0.hasPrefix(name) }
        return extended.count == 1 && name.count >= 3 ? extended[0] : nil
    }

    /// Levenshtein distance: insertions, deletions and substitutions, one each.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
