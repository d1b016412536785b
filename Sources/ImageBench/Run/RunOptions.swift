import Foundation

/// What a user typed for `imgbench run`, one field per flag, before it means anything: the
/// command line fills this in and `plan()` turns it into a checked `BenchmarkPlan`. Parsing and
/// every rule live here and in `BenchmarkPlan.validate()`, so the command-line target only maps
/// flags to fields (as hyperfine's cli.rs → options.rs). The defaults here are the tool's.
public struct RunOptions: Sendable {
    public var rows = 5_000
    public var concurrency = "5"
    public var strategies = StrategyKind.defaults.map(\.rawValue).joined(separator: ",")
    public var formats = CorpusFormat.mixed.description
    public var transport = TransportKind.blocking.rawValue
    public var network: String?
    public var source: String?
    public var scroll = ScrollProfile.fling.rawValue
    public var fps = 60
    public var seed: UInt64 = 1
    public var filter = ImageFilter.sepia.rawValue
    /// Lists: each of two or more values is a dimension of the matrix (`PolicyDimension`).
    public var cancel = CancelPolicy.offscreen.rawValue
    public var coalesce = true
    public var memoryCacheMB = String(MemoryCache.defaultCostLimit / 1_000_000)
    public var diskCache: String?
    public var diskCacheMB = DiskCache.defaultSizeLimit / 1_000_000
    public var diskRead = DiskReadMode.background.rawValue
    public var prefetch = "0"
    public var decodeConcurrency: Int?
    public var filterConcurrency: Int?
    public var progressive = false
    public var resume = false
    public var repeats = 1
    public var warmup = 0
    /// Long enough for Dispatch's pool to grow to a limit of 5 (about a thread a second).
    public var warmupSeconds = 5.0
    public var images: Int?
    public var feed: String?
    public var timeoutSeconds = 10.0
    public var stallTimeoutSeconds = 5
    public var retries = 0
    public var faults: String?
    public var maxPixels = DecodeLimits().maxPixels
    public var maxDecodeMB = DecodeLimits.defaultMaxDecodeMegabytes
    public var maxBytes = FetchLimits().maxBytes
    public var clients = 1
    /// Whether `--clients` was given (`--stages` and `--arrival-rate` bring their own users).
    public var clientsGiven = false
    public var duration: String?
    public var stages: String?
    public var arrivalRate: String?
    public var shard: String?
    public var decodes = true
    public var inject: String?

    public init() {}

    /// The plan these options describe, or the first thing wrong with them, naming its flag.
    public func plan() throws(PlanError) -> BenchmarkPlan {
        var settings = RunSettings()
        settings.rows = rows
        settings.fps = fps
        settings.seed = seed
        settings.scroll = try Self.parse(scroll, flag: "--scroll")
        settings.filter = try Self.parse(filter, flag: "--filter")
        settings.transport = try Self.parse(transport, flag: "--transport")
        settings.network = try Self.parsing("--network: ") { () throws(NetworkProfile.ParseError) in
            try NetworkProfile(parsing: network ?? "wifi")
        }
        if let source {
            // Only the entries the feed can reach are read: a manifest's own order shows its first
            // `rows`, zipf draws from its first `--images`.
            var reach = settings
            reach.imageCount = images
            reach.feed = feed.flatMap(FeedOrder.init(rawValue:))
            settings.source = try Self.parsing { () throws(ImageSource.ParseError) in
                try ImageSource(parsing: source, manifestLimit: reach.manifestReach)
            }
            for (flag, given) in [("--network", network != nil), ("--faults", faults != nil)] where given {
                throw PlanError("\(flag) shapes the embedded server; a --source server is used as it is")
            }
            settings.network = .unshaped
        }
        settings.coalesce = coalesce
        if let inject {
            settings.injection = try Self.parsing { () throws(FaultInjection.ParseError) in try FaultInjection(parsing: inject) }
        }
        settings.diskRead = try Self.parse(diskRead, flag: "--disk-read")
        settings.diskCacheDirectory = diskCache
        // Ranges are checked before scaling: a huge number of MB or seconds would overflow.
        typealias R = FlagRanges
        settings.diskCacheBytes = try R.check(diskCacheMB, in: R.diskCacheMB, "--disk-cache-mb") * 1_000_000
        if let limit = decodeConcurrency { settings.decodeConcurrency = try R.check(limit, in: R.stageConcurrency, "--decode-concurrency") }
        if progressive { settings.progressive = true }
        if resume { settings.resume = true }
        if let limit = filterConcurrency { settings.filterConcurrency = try R.check(limit, in: R.stageConcurrency, "--filter-concurrency") }
        // Policies as lists: the first value is the settings', and two or more make a dimension.
        var variations: [PolicyVariation] = []
        for (dimension, text) in [(PolicyDimension.cancel, cancel), (.prefetch, prefetch), (.memoryCacheMB, memoryCacheMB)] {
            let values = try Self.list(text, flag: dimension.flag).map { item throws(PlanError) in try dimension.canonical(item) }
            guard Set(values).count == values.count else { throw PlanError("\(dimension.flag) '\(text)' names a value twice") }
            dimension.apply(values[0], to: &settings)
            if values.count > 1 { variations.append(PolicyVariation(dimension: dimension, values: values)) }
        }
        // Rounded, not truncated: 1.001 s is 1001 ms however the double falls.
        let timeout = (try R.check(timeoutSeconds, in: R.timeoutSeconds, "--timeout") * 1000).rounded()
        settings.fetchLimits = FetchLimits(timeoutMilliseconds: Int(timeout), maxBytes: maxBytes,
                                           stallMilliseconds: try R.check(stallTimeoutSeconds, in: R.stallTimeoutSeconds, "--stall-timeout") * 1000)
        settings.retry = RetryPolicy(retries: retries)
        if let faults {
            settings.faults = try Self.parsing { () throws(ServerFaults.ParseError) in try ServerFaults(parsing: faults) }
        }
        settings.decodeLimits = DecodeLimits(maxPixels: maxPixels, maxDecodeMegabytes: maxDecodeMB)
        settings.imageCount = images
        if let feed { settings.feed = try Self.parse(feed, flag: "--feed") }
        settings.clients = clients
        if let load = try loadModel() {
            settings.load = load
            settings.clients = load.users(clients: clients)
        }
        settings.decodes = decodes
        settings.keepManifestEntriesInUse()
        settings.shard = try shard.map { text throws(PlanError) in try ClientShard(parsing: text) }

        let limits = try Self.list(concurrency, flag: "--concurrency").map { text throws(PlanError) in
            guard let value = Int(text) else { throw PlanError("--concurrency: '\(text)' is not a whole number") }
            return try R.check(value, in: R.concurrency, "--concurrency")
        }
        // `all`: every strategy the transport can run (`events` needs the multi transport).
        let kinds: [StrategyKind] = strategies == "all" ? StrategyKind.allCases.filter { $0 != .events || settings.transport == .multi }
            : try Self.list(strategies, flag: "--strategies").map { text throws(PlanError) in try Self.parse(text, flag: "--strategies") }
        let formatList = try Self.list(formats, flag: "--formats").map { text throws(PlanError) in try CorpusFormat(parsing: text) }
        let plan = BenchmarkPlan(settings: settings, strategies: kinds, concurrencies: limits, repeats: repeats, warmups: warmup,
                                 warmupSeconds: warmupSeconds, formats: formatList, variations: variations)
        try plan.validate()
        return plan
    }

    /// `--duration`, `--stages`, `--arrival-rate` as one model, or the first conflict among them.
    private func loadModel() throws(PlanError) -> LoadModel? {
        let seconds = try duration.map { text throws(PlanError) in try LoadModel.seconds(parsing: text, flag: "--duration") }
        if let arrivalRate {
            guard stages == nil else { throw PlanError("--arrival-rate and --stages are two load models: choose one") }
            guard let seconds else { throw PlanError("--arrival-rate needs --duration: how long users keep arriving") }
            guard !clientsGiven else { throw PlanError("--arrival-rate brings its own users (rate × duration): drop --clients") }
            let model = LoadModel.arrivalRate(perSecond: try LoadModel.rate(parsing: arrivalRate), seconds: seconds)
            try FlagRanges.check(model.users(clients: 0), in: FlagRanges.sessions, "--arrival-rate × --duration (users in all)")
            return model
        }
        if let stages {
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

    /// What the options leave out without an error, to say before running: `--strategies all`
    /// without `--transport multi` has no `events`.
    public var notes: [String] {
        guard strategies == "all", transport != TransportKind.multi.rawValue else { return [] }
        return ["--strategies all: events left out (it needs --transport multi: it has no thread to block on a download)"]
    }

    private static func parse<T: RawRepresentable & CaseIterable>(_ text: String, flag: String) throws(PlanError) -> T
    where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            let valid = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw PlanError("\(flag): unknown value '\(text)' (valid: \(valid))")
        }
        return value
    }

    /// A spec parser's error as a plan error (their messages already name the flag, or get
    /// `prefix`).
    private static func parsing<T, E: Error & CustomStringConvertible>(_ prefix: String = "", _ body: () throws(E) -> T) throws(PlanError) -> T {
        do {
            return try body()
        } catch {
            throw PlanError(prefix + error.description)
        }
    }
}
