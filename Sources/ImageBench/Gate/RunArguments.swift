import Foundation

/// A plan as `imgbench run` arguments: the one place outside the command-line target that writes
/// imgbench's flags. The gate runs a baseline's plan again through it, in a child process of this
/// or another imgbench build (A/B), so the flags are the stable interface between versions.
public struct RunArguments: Sendable, Equatable {
    /// The arguments after `imgbench run`, every setting spelled out (defaults too, so a build
    /// with other defaults runs the same benchmark).
    public let words: [String]

    public init(_ plan: BenchmarkPlan) {
        let s = plan.settings
        // A varied policy is said as its list (the first value is also the settings').
        func policy(_ dimension: PolicyDimension) -> String {
            plan.variations.first { $0.dimension == dimension }.map { $0.values.joined(separator: ",") } ?? dimension.value(of: s)
        }
        let options: [(flag: String, value: String)] = [
            ("--rows", String(s.rows)), ("--strategies", plan.strategies.map(\.rawValue).joined(separator: ",")),
            ("--concurrency", plan.concurrencies.map(String.init).joined(separator: ",")),
            ("--transport", s.transport.rawValue), ("--scroll", s.scroll.rawValue), ("--fps", String(s.fps)),
            ("--seed", String(s.seed)), ("--filter", s.filter.rawValue), ("--cancel", policy(.cancel)),
            ("--memory-cache-mb", policy(.memoryCacheMB)), ("--disk-cache-mb", String(s.diskCacheBytes / 1_000_000)),
            ("--disk-read", s.diskRead.rawValue), ("--prefetch", policy(.prefetch)),
            ("--repeat", String(plan.repeats)), ("--warmup", String(plan.warmups)),
            ("--warmup-seconds", Format.compact(plan.warmupSeconds)),
            ("--timeout", Format.compact(Double(s.fetchLimits.timeoutMilliseconds) / 1000)),
            ("--stall-timeout", String(s.fetchLimits.stallMilliseconds / 1000)), ("--retries", String(s.retry.retries)),
            ("--max-pixels", String(s.decodeLimits.maxPixels)), ("--max-bytes", String(s.fetchLimits.maxBytes)),
            ("--max-decode-mb", String(s.decodeLimits.maxDecodeMegabytes)),
        ]
        var words: [String] = options.flatMap { [$0.flag, $0.value] }
        // `--stages` and `--arrival-rate` bring their own users and refuse a --clients.
        switch s.load {
        case nil, .duration: words += ["--clients", String(s.clients)]
        case .stages, .arrivalRate: break
        }
        words += s.load?.flags ?? []
        words.append(s.coalesce ? "--coalesce" : "--no-coalesce")
        switch s.source {
        case .embedded:
            // The default profile is left unsaid, so a side's `--source` (which refuses a
            // `--network`) can replace the embedded server, as it could before plans existed.
            if s.network != RunSettings().network { words += ["--network", s.network.name] }
            if !s.faults.isEmpty { words += ["--faults", s.faults.description] }
        case .template(let template): words += ["--source", template]
        case .manifest(let path, _), .manifestURL(let path): words += ["--source", path]
        }
        words += Self.formatFlags(plan)
        if let images = s.imageCount { words += ["--images", String(images)] }
        if let feed = s.feed { words += ["--feed", feed.rawValue] }
        if let directory = s.diskCacheDirectory { words += ["--disk-cache", directory] }
        if let shard = s.shard { words += ["--shard", shard.description] }
        if !s.decodes { words.append("--no-decode") }
        if s.injection != .none { words += ["--inject", s.injection.description] }
        if s.progressive == true { words.append("--progressive") }
        if s.resume == true { words.append("--resume") }
        if let limit = s.decodeConcurrency { words += ["--decode-concurrency", String(limit)] }
        if let limit = s.filterConcurrency { words += ["--filter-concurrency", String(limit)] }
        self.words = words
    }

    /// `--formats`, said only when it is not the mix (which builds before formats ran), so such a
    /// build can still run the plan.
    static func formatFlags(_ plan: BenchmarkPlan) -> [String] {
        plan.formats == [.mixed] ? [] : ["--formats", plan.formats.map(\.description).joined(separator: ",")]
    }

    /// The whole child invocation: `run`, the plan, then `extra` (later flags win, so a side's
    /// own `--inject` or `--source` changes only that side), then the plan's matrix again (the
    /// repeats and cells the gate chose win over a side's), quiet, into `directory`.
    public static func invocation(_ plan: BenchmarkPlan, extra: [String] = [], into directory: URL) -> [String] {
        let matrix = ["--repeat", String(plan.repeats), "--strategies", plan.strategies.map(\.rawValue).joined(separator: ","),
                      "--concurrency", plan.concurrencies.map(String.init).joined(separator: ",")] + formatFlags(plan)
        // --force: the gate owns its workspace, and a re-run of the gate writes into it again.
        return ["run"] + RunArguments(plan).words + extra + matrix + ["--quiet", "--force", "--out", directory.path]
    }
}
