/// What `imgbench explore` was asked: run flags whose lists span the space (`--concurrency 1,2,4`,
/// `--cancel none,offscreen`, `--prefetch 0,10`, `--memory-cache-mb 16,64`, `--http 1.1,2`),
/// networks to explore each of them on (`--network 3g,wifi`), how many of the model's best cells
/// real runs confirm (`--confirm`), and the user's own settings (`--current`), which are always
/// confirmed too. Everything but `--confirm` and `--current` is a run flag, read by the run-flag
/// catalog, so the space is every dimension a run can vary.
public struct ExploreOptions: Sendable {
    /// One plan per network, in the order given: the space as the model runs it.
    public let plans: [BenchmarkPlan]
    /// How many of the model's best cells a network's real runs confirm (0: the model only).
    public let confirmTop: Int
    /// The user's own settings, as run flags (`--concurrency 5 --cancel none`); empty: imgbench's defaults.
    let currentWords: [String]
    /// Whether the exploration measures this machine's own time per request first (the run
    /// `imgbench calibrate` makes) and gives it to the model: when real runs will follow and no
    /// `--host-delay-ms` says one (0: the model without it).
    public let calibrates: Bool
    public let output: RunOutput

    static let confirmRange = 0...10

    /// `words`: everything after `explore`.
    public init(parsing words: [String]) throws(PlanError) {
        var runWords: [String] = [], confirm = 3, current: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            let (name, inline) = Self.split(word)
            guard name == "--confirm" || name == "--current" else {
                runWords.append(word)
                continue
            }
            guard let text = inline ?? (index < words.count ? words[index] : nil) else { throw PlanError("Missing value for '\(name)'") }
            if inline == nil { index += 1 }
            if name == "--confirm" {
                guard let top = Int(text), Self.confirmRange.contains(top) else {
                    throw PlanError("--confirm '\(text)': give the number of the model's best cells to confirm with real runs (0 to 10)")
                }
                confirm = top
            } else {
                current = text.split(separator: " ").map(String.init)
            }
        }
        var options = try RunOptions(parsing: runWords)
        for (flag, why) in [("time", "explore chooses the clock: virtual to search the space, real to confirm"),
                            ("budget", "explore's real runs confirm cells on the model's trace; a --budget decides rounds of a run"),
                            ("repeat", "the model's runs repeat exactly, and the real ones run once each (the verdict's intervals come from the trace's segments)")]
        where options[flag] != nil {
            throw PlanError("--\(flag) is not taken: \(why)")
        }
        // Only the events strategy's queueing is modelled: the space's strategy unless one is named.
        if options["strategies"] == nil { (options["strategies"], options["transport"]) = ("events", options["transport"] ?? "multi") }
        // Without --host-delay-ms, real runs to follow measure the host first (its decodes too).
        let calibrates = confirm > 0 && options["host-delay-ms"] == nil
        let networks = try Self.networks(options["network"])
        let targets = try networks.map { network throws(PlanError) in
            var options = options
            options["network"] = network
            options["time"] = RunTime.virtual.rawValue
            do throws(PlanError) {
                return try options.resolved(decodeCostsLater: calibrates)
            } catch {
                throw PlanError(error.description.replacingOccurrences(of: "--time virtual: ", with: ""))
            }
        }
        plans = targets.map(\.plan)
        confirmTop = confirm
        self.calibrates = calibrates
        currentWords = current
        output = targets[0].output
        _ = try currentCell(in: plans[0])  // a mistake in --current is a usage error, before anything runs
    }

    /// `--name=value` as (name, value); `--name` as (name, nil).
    private static func split(_ word: String) -> (String, String?) {
        guard let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// `3g,wifi` is two networks; `latency=80ms,jitter=20ms` one profile (its commas are its own).
    static func networks(_ text: String?) throws(PlanError) -> [String] {
        guard let text else { return ["wifi"] }
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let names = Set(NetworkProfile.presets.map(\.name))
        guard items.count > 1, items.allSatisfy(names.contains) else { return [text] }
        return try RunOptions.list(text, flag: "--network")
    }

    /// The cell the user's own settings make in `plan`'s space: their limit and their value of
    /// each varied policy (imgbench's default where `--current` names none).
    func currentCell(in plan: BenchmarkPlan) throws(PlanError) -> ExploredChoice {
        var options = try RunOptions(parsing: currentWords)
        // A setting the space does not vary is the same for every cell, yours too: named only in
        // --current it would be dropped, and "your settings" would not be yours.
        let dimensions = Set(["--concurrency"] + plan.variations.map(\.dimension.flag))
        if let outside = options.names.map({ "--" + $0 }).first(where: { !dimensions.contains($0) }) {
            throw PlanError("--current: \(outside) is not explored (give it a list to explore it, or set it outside --current for every cell)")
        }
        options["no-decode"] = "true"
        let own: BenchmarkPlan
        do throws(PlanError) {
            own = try options.plan()
        } catch {
            throw PlanError("--current: \(error.description)")
        }
        guard own.concurrencies.count == 1, own.variations.isEmpty else {
            throw PlanError("--current: one value per flag, the settings you run today (got '\(currentWords.joined(separator: " "))')")
        }
        let values = Dictionary(uniqueKeysWithValues: plan.variations.map { ($0.dimension, $0.dimension.value(of: own.settings)) })
        return ExploredChoice(concurrency: own.concurrencies[0], variant: PolicyVariant(values))
    }
}
