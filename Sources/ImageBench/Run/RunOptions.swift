import Foundation

/// What a user typed for `imgbench run`, before it means anything: each flag's text by its
/// catalog name (`RunFlag.catalog`). `RunOptions(parsing:)` reads the words of a command line;
/// `plan()` lets every catalog entry put its value in a checked `BenchmarkPlan`. Nothing here
/// names a flag of its own: a new flag is a catalog entry, not a field (as hyperfine's cli.rs →
/// options.rs, with the declarations in one list).
public struct RunOptions: Sendable {
    /// Each given flag's texts in the order given (a repeatable flag keeps every one).
    private var given: [String: [String]] = [:]

    init() {}

    /// A flag's text (the last one given), by its name without dashes; a switch reads "true".
    subscript(name: String) -> String? {
        get { given[name]?.last }
        set {
            precondition(RunFlag.named(name) != nil, "no run flag --\(name)")
            given[name] = newValue.map { [$0] }
        }
    }

    /// The names (without dashes) of the flags given, in order.
    var names: [String] { given.keys.sorted() }

    /// Every text a repeatable flag was given.
    func all(_ name: String) -> [String] { given[name] ?? [] }

    mutating func add(_ name: String, _ text: String) { given[name, default: []].append(text) }

    /// The plan these options describe, or the first thing wrong with them, naming its flag.
    public func plan() throws(PlanError) -> BenchmarkPlan { try resolved().plan }

    /// The plan and what `imgbench run` needs beside it (output, thresholds). `decodeCostsLater`:
    /// a virtual plan that decodes may lack its decode times, which the caller measures before it
    /// runs (explore's calibration).
    public func resolved(decodeCostsLater: Bool = false) throws(PlanError) -> RunFlag.Target {
        var target = RunFlag.Target(plan: BenchmarkPlan(settings: RunSettings(), strategies: [], concurrencies: []), options: self)
        for flag in RunFlag.catalog { try flag.apply(self[flag.name], &target) }
        // The rules that join flags: who scrolls when, and what a manifest must keep.
        if let load = try loadModel() {
            target.plan.settings.load = load
            target.plan.settings.clients = load.users(clients: target.plan.settings.clients)
        }
        // A load test that names no strategy runs the cheap path (`LoadTestDefaults`).
        if LoadTestDefaults.apply(self, clients: target.plan.settings.clients, decodes: target.plan.settings.decodes) {
            target.plan.strategies = LoadTestDefaults.strategies
            target.plan.settings.transport = LoadTestDefaults.transport
        }
        // `--http 2` with no --transport: the multi transport, the one that multiplexes.
        if self["transport"] == nil, (self["http"] ?? "").split(separator: ",").contains(where: { ["2", "2.0"].contains($0.trimmingCharacters(in: .whitespaces)) }) {
            target.plan.settings.transport = .multi
        }
        target.plan.settings.keepManifestEntriesInUse()
        try target.plan.validate(decodeCostsLater: decodeCostsLater)
        return target
    }

    /// `--duration`, `--stages`, `--arrival-rate` as one model, or the first conflict among them.
    private func loadModel() throws(PlanError) -> LoadModel? {
        let seconds = try self["duration"].map { text throws(PlanError) in try LoadModel.seconds(parsing: text, flag: "--duration") }
        let clientsGiven = self["clients"] != nil
        if let arrivalRate = self["arrival-rate"] {
            guard self["stages"] == nil else { throw PlanError("--arrival-rate and --stages are two load models: choose one") }
            guard let seconds else { throw PlanError("--arrival-rate needs --duration: how long users keep arriving") }
            guard !clientsGiven else { throw PlanError("--arrival-rate brings its own users (rate × duration): drop --clients") }
            let model = LoadModel.arrivalRate(perSecond: try LoadModel.rate(parsing: arrivalRate), seconds: seconds)
            try FlagRanges.check(model.users(clients: 0), in: FlagRanges.sessions, "--arrival-rate × --duration (users in all)")
            return model
        }
        if let stages = self["stages"] {
            guard !clientsGiven else { throw PlanError("--stages sets the number of users (its largest target): drop --clients") }
            let model = LoadModel.stages(try LoadModel.stages(parsing: stages))
            if let seconds, abs(seconds - model.seconds) > 1e-6 {
                throw PlanError("--duration \(FlagRanges.text(seconds)) s and --stages (\(FlagRanges.text(model.seconds)) s in all) disagree: the stages set the duration")
            }
            return model
        }
        return seconds.map { .duration(seconds: $0) }
    }

    /// A comma-separated list, each item once: an empty item (`1,,3`) or a repeated one
    /// (`threads,threads`: two cells under one name) is a mistake to say, not to mend.
    static func list(_ text: String, flag: String) throws(PlanError) -> [String] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard items != [""] else { throw PlanError("\(flag) needs at least one value") }
        if let empty = items.firstIndex(of: "") {
            throw PlanError("\(flag) '\(text)': item \(empty + 1) is empty")
        }
        var seen = Set<String>()
        for item in items where !seen.insert(item).inserted {
            throw PlanError("\(flag) '\(text)': '\(item)' is given twice")
        }
        return items
    }

    /// What to say before running: what the options leave out without an error (`--strategies
    /// all` without `--transport multi` has no `events`), and repeats too few for the gate's test.
    public var notes: [String] {
        var notes: [String] = []
        let plan = try? plan()
        if let plan, LoadTestDefaults.apply(self, clients: plan.settings.clients, decodes: plan.settings.decodes) {
            notes.append(LoadTestDefaults.note)
        }
        if plan?.settings.isVirtual == true {
            notes.append("--time virtual: the network is modelled and every frame lasts one frame, on a virtual clock; no socket opens, "
                         + "and two runs of the same flags write the same summary.csv")
        }
        if self["strategies"] == "all", self["transport"] != TransportKind.multi.rawValue {
            notes.append("--strategies all: events left out (it needs --transport multi: it has no thread to block on a download)")
        }
        // Repeats meant for statistics, too few for the gate's test: said before a baseline is made.
        let needed = MannWhitney.runsNeeded(alpha: 0.05)
        if let repeats = self["repeat"].flatMap(Int.init), (2..<needed).contains(repeats) {
            notes.append("--repeat \(repeats): as a gate's baseline these runs cannot show a change beyond noise "
                         + "(Mann–Whitney needs \(needed) runs a side at α = 0.05); the gate would judge by its thresholds alone")
        }
        return notes
    }
}
