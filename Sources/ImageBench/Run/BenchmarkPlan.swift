/// The matrix to run: every strategy at every concurrency limit, `repeats` times, all on one
/// workload. The one value a run's configuration travels as: the command line builds it
/// (`RunOptions`), summary.json records it, and merge, report, compare and gate read it back.
public struct BenchmarkPlan: Sendable, Equatable, Codable {
    public var settings: RunSettings
    var strategies: [StrategyKind]
    var concurrencies: [Int]
    public var repeats: Int
    /// Rounds of every cell run first and not counted (repetition 0 in progress output).
    var warmups: Int
    /// Seconds of the trace each cell plays just before every measured run, not counted, so no
    /// run is measured cold (`--warmup-seconds`; 0 turns it off).
    var warmupSeconds: Double
    /// The corpus formats to compare (`--formats`): each cell runs in each, on the same pictures
    /// and the same trace.
    var formats: [CorpusFormat]
    /// Policies given as lists (`--cancel none,offscreen`): each a dimension of the matrix. The
    /// settings hold each one's first value.
    var variations: [PolicyVariation]
    /// `--budget`: rounds decided by the data instead of `repeats` (nil: `repeats` as given).
    var budget: Budget?
    /// `--max-error-rate` as given (nil: not given). `errorLimit` is what judges the cells.
    var maxErrorRate: Double?
    /// `--rank-by` as given (nil: not given, placeholder time).
    var rankBy: RankBy?

    /// A cell whose HTTP requests failed more often than this is not ranked (`ErrorLimit`): the
    /// flag's value, or 1% above the faults the embedded server was told to inject (a run that asks
    /// for `--faults error=5%` means its cells to be ranked on what they do with them).
    var errorLimit: Double { maxErrorRate ?? ErrorLimit.standard(faults: settings.faults) }

    init(settings: RunSettings, strategies: [StrategyKind], concurrencies: [Int], repeats: Int = 1,
                warmups: Int = 0, warmupSeconds: Double = 0, formats: [CorpusFormat] = [.mixed], variations: [PolicyVariation] = []) {
        self.settings = settings
        self.strategies = strategies
        self.concurrencies = concurrencies
        self.repeats = repeats
        self.warmups = warmups
        self.warmupSeconds = warmupSeconds
        self.formats = formats
        self.variations = variations
    }

    /// Plans of imgbench 0.2 have no `warmupSeconds` (they ran without one) and no `formats`
    /// (they ran the mix).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(settings: try container.decode(RunSettings.self, forKey: .settings),
                  strategies: try container.decode([StrategyKind].self, forKey: .strategies),
                  concurrencies: try container.decode([Int].self, forKey: .concurrencies),
                  repeats: try container.decode(Int.self, forKey: .repeats),
                  warmups: try container.decode(Int.self, forKey: .warmups),
                  warmupSeconds: try container.decodeIfPresent(Double.self, forKey: .warmupSeconds) ?? 0,
                  formats: try container.decodeIfPresent([CorpusFormat].self, forKey: .formats) ?? [.mixed],
                  variations: try container.decodeIfPresent([PolicyVariation].self, forKey: .variations) ?? [])
        budget = try container.decodeIfPresent(Budget.self, forKey: .budget)
        // Plans before 0.7 had no limit; the default judges them as it judges a run today.
        maxErrorRate = try container.decodeIfPresent(Double.self, forKey: .maxErrorRate)
        rankBy = try container.decodeIfPresent(RankBy.self, forKey: .rankBy)
    }

    /// Runs that count (warm-ups excluded; a budget's later rounds come on top).
    public var measuredRuns: Int { strategies.count * concurrencies.count * formats.count * variants.count * max(1, repeats) }

    /// Every combination of the varied policies' values, the first values first.
    var variants: [PolicyVariant] {
        variations.reduce([PolicyVariant()]) { variants, variation in
            variants.flatMap { variant in variation.values.map { variant.with(variation.dimension, $0) } }
        }
    }

    /// The settings a cell runs with: the plan's, with the cell's policy values.
    func settings(for cell: RunCell) -> RunSettings { cell.variant.applied(to: settings) }

    /// Cells in run order: warm-ups first, then repeats outermost, so drift over time spreads
    /// across every cell instead of favouring the ones that ran first.
    var cells: [RunCell] {
        let round = { (repetition: Int) in
            self.strategies.flatMap { strategy in
                self.concurrencies.flatMap { limit in
                    self.formats.flatMap { format in
                        self.variants.map { RunCell(strategy: strategy, concurrency: limit, repetition: repetition, format: format, variant: $0,
                                                    trace: self.trace(ofRepetition: repetition)) }
                    }
                }
            }
        }
        return (0..<warmups).flatMap { _ in round(0) } + (1...max(1, repeats)).flatMap(round)
    }

    /// The same plan for every client: the one a shard belongs to.
    public var unsharded: BenchmarkPlan {
        var plan = self
        plan.settings.shard = nil
        return plan
    }
}

/// A plan that cannot run, naming the flag to change.
public struct PlanError: Error, CustomStringConvertible, Equatable {
    public let description: String

    init(_ description: String) { self.description = description }
}

extension BenchmarkPlan {
    /// Every rule a plan must keep, one flag or several, whether it came from a command line or
    /// was read back from a summary.json (which may have been edited by hand).
    func validate(decodeCostsLater: Bool = false) throws(PlanError) {
        let s = settings
        func check(_ holds: Bool, _ message: @autoclosure () -> String) throws(PlanError) {
            if !holds { throw PlanError(message()) }
        }
        typealias R = FlagRanges
        try R.check(s.rows, in: R.rows, "--rows")
        try R.check(s.fps, in: R.fps, "--fps")
        try check(!strategies.isEmpty, "--strategies needs at least one value")
        // Every cell of events must have the multi transport, a varied one included.
        let transports = variations.first { $0.dimension.rawValue == "transport" }?.values ?? [s.transport.rawValue]
        try check(!strategies.contains(.events) || transports == [TransportKind.multi.rawValue],
                  "--strategies events needs --transport multi (it has no thread to block on a download)")
        // HTTP/2 multiplexes a user's loads on one connection: only a multi handle can.
        let versions = variations.first { $0.dimension.rawValue == "http" }?.values ?? [s.fetchLimits.httpVersion.rawValue]
        try check(!versions.contains(HTTPVersion.http2.rawValue) || transports == [TransportKind.multi.rawValue],
                  "--http 2 needs --transport multi (a blocking transport's workers each hold an easy handle, and those cannot share a connection)")
        try validateVirtualTime(decodeCostsLater: decodeCostsLater)
        try check(s.tls != true || s.source == .embedded,
                  "--tls serves the embedded server over HTTPS; for a --source, give its https:// URL (and --ca-file for a CA of your own)")
        try check(!concurrencies.isEmpty, "--concurrency needs at least one value")
        try check(Set(concurrencies).count == concurrencies.count, "--concurrency names a limit twice")
        try check(Set(strategies).count == strategies.count, "--strategies names a strategy twice")
        try check(!formats.isEmpty, "--formats needs at least one value")
        try check(Set(formats).count == formats.count, "--formats names a format twice")
        try check(Set(variations.map(\.dimension)).count == variations.count, "a policy is varied twice")
        for variation in variations {
            let flag = variation.dimension.flag
            try check(variation.values.count >= 2 && Set(variation.values).count == variation.values.count,
                      "\(flag): a varied policy needs two or more distinct values")
            for value in variation.values { try check(try variation.dimension.canonical(value) == value, "\(flag): '\(value)' is not canonical") }
        }
        // A dimension whose values cannot differ would report noise as an effect.
        let varied = Set(variations.map(\.dimension.rawValue))
        try check(!varied.contains("disk_read") || s.diskCacheDirectory != nil, "--disk-read: a list changes nothing without --disk-cache")
        for (column, flag) in [("filter", "--filter"), ("decode_concurrency", "--decode-concurrency")] where varied.contains(column) {
            try check(s.decodes, "\(flag): a list changes nothing with --no-decode")
        }
        try checkFormats()
        for limit in concurrencies { try R.check(limit, in: R.concurrency, "--concurrency") }
        try R.check(repeats, in: R.repeats, "--repeat")
        if let maxErrorRate { try R.check(maxErrorRate, in: R.maxErrorRate, "--max-error-rate") }
        if let budget {
            try R.check(budget.seconds, in: R.budgetSeconds, "--budget")
            try check(repeats == 1, "--budget decides how many rounds each cell runs: drop --repeat")
            try check(s.clients == 1 && s.load == nil && s.shard == nil,
                      "--budget races the cells of one user's scroll; with --clients, a load model or --shard it is a load test: drop --budget")
        }
        try R.check(warmups, in: R.warmup, "--warmup")
        try R.check(warmupSeconds, in: R.warmupSeconds, "--warmup-seconds")
        if let delay = s.hostDelayMs { try R.check(delay, in: R.hostDelayMs, "--host-delay-ms") }
        try R.check(s.prefetch, in: R.prefetch, "--prefetch")
        if let limit = s.decodeConcurrency { try R.check(limit, in: R.stageConcurrency, "--decode-concurrency") }
        if let limit = s.filterConcurrency { try R.check(limit, in: R.stageConcurrency, "--filter-concurrency") }
        try R.check(s.memoryCacheBytes / 1_000_000, in: R.memoryCacheMB, "--memory-cache-mb")
        try R.check(s.diskCacheBytes / 1_000_000, in: R.diskCacheMB, "--disk-cache-mb")
        try check(s.diskCacheDirectory?.isEmpty != true, "--disk-cache needs a directory")
        try R.check(Double(s.fetchLimits.timeoutMilliseconds) / 1000, in: R.timeoutSeconds, "--timeout")
        try R.check(s.fetchLimits.stallMilliseconds / 1000, in: R.stallTimeoutSeconds, "--stall-timeout")
        try R.check(s.retry.retries, in: R.retries, "--retries")
        try R.check(s.decodeLimits.maxPixels, in: R.maxPixels, "--max-pixels")
        try R.check(s.decodeLimits.maxDecodeMegabytes, in: R.maxDecodeMB, "--max-decode-mb")
        try R.check(s.fetchLimits.maxBytes, in: R.maxBytes, "--max-bytes")
        if let agent = s.fetchLimits.userAgent, let refusal = FetchLimits.userAgentRefusal(agent) { throw PlanError("--user-agent: \(refusal)") }
        if let images = s.imageCount {
            try R.check(images, in: s.source == .embedded ? R.embeddedImages : R.images, "--images")
        }
        if case .arrivalRate(let rate, let seconds) = s.load {
            try R.check(rate, in: R.arrivalRate, "--arrival-rate")
            try R.check(seconds, in: R.loadSeconds, "--duration")
            try check(s.clients == s.load?.users(clients: s.clients),
                      "--arrival-rate \(FlagRanges.text(rate))/s for \(FlagRanges.text(seconds)) s brings \(s.load!.users(clients: 0)) users, not \(s.clients)")
            try R.check(s.clients, in: R.sessions, "--arrival-rate × --duration (users in all)")
        } else {
            try R.check(s.clients, in: R.clients, "--clients")
        }
        if case .duration(let seconds) = s.load { try R.check(seconds, in: R.loadSeconds, "--duration") }
        if case .stages(let stages) = s.load {
            try R.check(stages.reduce(0) { $0 + $1.seconds }, in: R.loadSeconds, "--stages (in all)")
            try check(s.clients == s.load?.users(clients: s.clients), "--stages: the largest target is the number of users (got \(s.clients))")
        }
        try check(s.clients == 1 || s.diskCacheDirectory == nil,
                  "--disk-cache with --clients: each simulated user would need a cache of its own (not supported)")
        if let shard = s.shard {
            try check(shard.count >= 1 && (1...shard.count).contains(shard.index),
                      "--shard: '\(shard)' is not I/N with 1 ≤ I ≤ N, e.g. 2/4")
            try check(shard.count <= s.clients,
                      "--shard \(shard): \(shard.count) shards need at least \(shard.count) --clients (got \(s.clients))")
        }
        if case .template(let template) = s.source, template.contains("{row}") {
            try check(s.feed == nil, "--feed: a {row} template gives every row its own image")
        }
        if s.source != .embedded {
            try check(s.faults.isEmpty, "--faults shapes the embedded server; a --source server is used as it is")
            try check(s.network == .unshaped, "--network shapes the embedded server; a --source server is used as it is")
        }
    }

    /// The settings in which `other` differs, as far as comparing their results goes: not the
    /// matrix (cells are matched one by one, repeats are the comparison's own choice) and not the
    /// injected slowdown (a testing aid meant to differ).
    public func configurationDifferences(from other: BenchmarkPlan) -> [String] {
        var mine = self, theirs = other
        (mine.strategies, mine.concurrencies, mine.repeats) = (theirs.strategies, theirs.concurrencies, theirs.repeats)
        // Like the repeats, the budget says how much was run, not what: its rounds are the same cells.
        mine.budget = theirs.budget
        // The error limit judges the cells afterwards; it changes nothing they measured.
        mine.maxErrorRate = theirs.maxErrorRate
        // So does the ranked metric.
        mine.rankBy = theirs.rankBy
        mine.settings.injection = .none
        theirs.settings.injection = .none
        return mine.differences(from: theirs)
    }

    /// The fields in which `other` differs from this plan, as `settings.rows: 600 → 1000`:
    /// empty when they describe the same benchmark.
    public func differences(from other: BenchmarkPlan) -> [String] {
        PlanDifferences.between(self, other)
    }
}

/// One slice of the simulated users, for running them in several processes (`--shard 2/4`).
struct ClientShard: Sendable, Equatable, Codable, CustomStringConvertible {
    /// From 1.
    var index: Int
    var count: Int

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `I/N`.
    init(parsing text: String) throws(PlanError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (1...count).contains(index) else {
            throw PlanError("--shard: '\(text)' is not I/N with 1 ≤ I ≤ N, e.g. 2/4")
        }
        self.init(index: index, count: count)
    }

    /// This shard's clients: contiguous slices, as even as they can be.
    func clients(of total: Int) -> Range<Int> {
        (index - 1) * total / count ..< index * total / count
    }

    var description: String { "\(index)/\(count)" }
}

extension NetworkProfile {
    /// What a `--source` run records: not shaped by imgbench, whatever the real network and
    /// server do.
    static let unshaped = NetworkProfile(name: "source", latencyMilliseconds: 0, jitterMilliseconds: 0,
                                                bandwidthBytesPerSecond: nil)
}
