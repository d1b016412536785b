// The words of `imgbench run` read through the catalog, and the help and completions it gives.
// The command-line target captures run's words and hands them here, so that no flag is declared
// twice (swift-argument-parser declares options statically; a catalog cannot generate them).

extension RunOptions {
    /// `--name value`, `--name=value`, switches, `--no-` inversions, repeated `--threshold`.
    /// Given twice, an option's later value wins (the gate appends a side's flags to a plan's).
    public init(parsing words: [String]) throws(PlanError) {
        self.init()
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.hasPrefix("--"), word.count > 2 else { throw PlanError("Unexpected argument '\(word)'") }
            var name = String(word.dropFirst(2)), inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let flag = RunFlag.named(name) {
                switch flag.kind {
                case .flag:
                    guard inline == nil else { throw PlanError("\(flag) takes no value (got '\(word)')") }
                    add(name, "true")
                case .option, .repeatable:
                    if let inline {
                        add(name, inline)
                    } else if let bare = flag.bare, index == words.count || words[index].hasPrefix("-") {
                        add(name, bare)
                    } else {
                        // Taken whatever it looks like: `--rows -1` is a bad number, not a missing one.
                        guard index < words.count else { throw PlanError("Missing value for '\(flag) <\(flag.valueName)>'") }
                        add(name, words[index])
                        index += 1
                    }
                }
            } else if name.hasPrefix("no-"), let flag = RunFlag.named(String(name.dropFirst(3))) {
                guard let inverted = flag.inverted else {
                    throw PlanError("\(flag) has no --no- form: leave it out to keep it off")
                }
                guard inline == nil else { throw PlanError("--\(name) takes no value (got '\(word)')") }
                add(flag.name, inverted)
            } else {
                let suggestion = RunFlag.closest(to: name).map { " Did you mean '--\($0)'?" } ?? ""
                throw PlanError("Unknown option '--\(name)'.\(suggestion)")
            }
        }
    }
}

extension RunOptions {
    /// Whether run's words ask for its help: `--help` or `-h` where a flag goes, not as the value
    /// of one (`--out -h` is a directory named -h).
    public static func asksForHelp(_ words: [String]) -> Bool {
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--help" || word == "-h" { return true }
            guard word.hasPrefix("--"), !word.contains("="), let flag = RunFlag.named(String(word.dropFirst(2))), flag.kind != .flag else { continue }
            // An option's value is skipped; a bare `--coalesce` before another flag has none.
            if flag.bare == nil || (index < words.count && !words[index].hasPrefix("-")) { index += 1 }
        }
        return false
    }
}

extension RunFlag {
    /// Every spelling a user can type: the names, and `no-` before the ones that invert.
    static var spellings: [String] { catalog.flatMap { [$0.name] + ($0.inverted == nil ? [] : ["no-" + $0.name]) } }

    /// The flag a mistyped name most likely meant (`rwos` → `rows`), if one is close.
    static func closest(to name: String) -> String? { Spelling.closest(to: name, among: spellings) }

    /// `--rows <rows>`, `--progressive`, `--coalesce <coalesce>, --no-coalesce`.
    var synopsis: String {
        switch kind {
        case .flag: flag
        case .option: "\(flag) <\(valueName)>" + (inverted == nil ? "" : ", --no-\(name)")
        case .repeatable: "\(flag) <\(valueName)> ..."
        }
    }

    /// The flag's line of help: its text, its range if the text lacks it, its default.
    var helpLine: String {
        var text = help
        if let range, !text.contains(range) { text += " \(range)" }
        if let defaultText, !text.contains("(default:") { text += " (default: \(defaultText))" }
        return text
    }

    /// run's flags in their groups, as `imgbench run --help` shows them.
    public static func helpText(columns: Int = 100) -> String {
        let indent = 30
        func wrapped(_ text: String) -> [String] {
            var lines: [String] = [], line = ""
            for word in text.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > columns - indent {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            return lines + [line]
        }
        let pad = String(repeating: " ", count: indent)
        return RunFlagGroup.allCases.map { group in
            let entries = catalog.filter { $0.group == group }.map { flag in
                let left = "  " + flag.synopsis
                let body = wrapped(flag.helpLine)
                let first = left.count + 2 <= indent ? left.padding(toLength: indent, withPad: " ", startingAt: 0) + body[0]
                    : left + "\n" + pad + body[0]
                return ([first] + body.dropFirst().map { pad + $0 }).joined(separator: "\n")
            }
            return group.rawValue.uppercased() + ":\n" + entries.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// What a shell offers for run's words: every spelling, and every value of the flags that
    /// have a fixed set.
    public static var completionWords: [String] {
        var words = spellings.map { "--" + $0 }
        for flag in catalog {
            if case .values(let values) = flag.completion {
                for value in values where !words.contains(value) { words.append(value) }
            }
        }
        return words
    }

    /// What a shell offers after `words` (the words typed so far): the values of the flag just
    /// typed, else every spelling.
    static func completions(after words: [String]) -> [String] {
        guard let last = words.last, last.hasPrefix("--"), let flag = named(String(last.dropFirst(2))), flag.kind != .flag else {
            return spellings.map { "--" + $0 }
        }
        if case .values(let values) = flag.completion { return values }
        return []
    }
}
