import ArgumentParser
import Foundation
import ImageBench

/// `imgbench run`: maps the flags to `RunOptions`, runs the plan they make, writes the results
/// directory. Every rule about the flags lives in the library (`RunOptions`, `BenchmarkPlan.validate`).
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Scroll a simulated feed and measure each strategy × concurrency limit.")

    private static let defaults = RunOptions()

    @Option(parsing: .unconditional, help: "Rows in the table \(FlagRanges.help(FlagRanges.rows)).")
    var rows = defaults.rows

    @Option(parsing: .unconditional, help: "Concurrency limits, comma-separated (each is a matrix column) \(FlagRanges.help(FlagRanges.concurrency)).")
    var concurrency = defaults.concurrency

    @Option(help: "Strategies, comma-separated, or all: \(StrategyKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var strategies = defaults.strategies

    @Option(help: "HTTP transport: blocking (an easy handle per worker) or multi (curl multi on one thread).")
    var transport = defaults.transport

    @Option(help: "Network profile of the embedded server: loopback, wifi (default), lte, 3g, edge, or latency=80ms,jitter=20ms,bandwidth=2MB/s.")
    var network: String?

    @Option(help: "Images from elsewhere: a URL template with {id} or {row} (http://host/img/{id}.jpg), or a manifest file (.json, .csv, .plist).")
    var source: String?

    @Option(help: "Scroll profile: \(ScrollProfile.allCases.map(\.rawValue).joined(separator: ", ")).")
    var scroll = defaults.scroll

    @Option(parsing: .unconditional, help: "Main-loop frame rate \(FlagRanges.help(FlagRanges.fps)).")
    var fps = defaults.fps

    @Option(help: "Seed for the trace, the feed, the images and the per-URL delays.")
    var seed = defaults.seed

    @Option(help: "Filter after decoding: \(ImageFilter.allCases.map(\.rawValue).joined(separator: ", ")).")
    var filter = defaults.filter

    @Option(help: "What to do with loads of rows that left the screen: \(CancelPolicy.allCases.map(\.rawValue).joined(separator: ", ")).")
    var cancel = defaults.cancel

    @Flag(inversion: .prefixedNo, help: "Merge loads of the same URL into one fetch and decode.")
    var coalesce = defaults.coalesce

    @Option(name: .customLong("memory-cache-mb"), parsing: .unconditional, help: "Memory cache limit in MB of decoded pixels \(FlagRanges.help(FlagRanges.memoryCacheMB)).")
    var memoryCacheMB = defaults.memoryCacheMB

    @Option(name: .customLong("disk-cache"), help: "Disk cache directory, kept between runs (default: no disk cache).")
    var diskCache: String?

    @Option(name: .customLong("disk-cache-mb"), parsing: .unconditional, help: "Disk cache size limit in MB \(FlagRanges.help(FlagRanges.diskCacheMB)).")
    var diskCacheMB = defaults.diskCacheMB

    @Option(name: .customLong("disk-read"), help: "Where disk cache hits are read and decoded: background or main (inside cellForRow).")
    var diskRead = defaults.diskRead

    @Option(parsing: .unconditional, help: "Rows ahead of the viewport to load at low priority \(FlagRanges.help(FlagRanges.prefetch)).")
    var prefetch = defaults.prefetch

    @Option(parsing: .unconditional, help: "Repeat each cell this many times \(FlagRanges.help(FlagRanges.repeats)).")
    var `repeat` = defaults.repeats

    @Option(parsing: .unconditional, help: "Rounds of every cell to run first and not count \(FlagRanges.help(FlagRanges.warmup)).")
    var warmup = defaults.warmup

    @Option(parsing: .unconditional, help: "Seconds of the trace each cell plays just before every measured run, not counted; 0: none \(FlagRanges.help(FlagRanges.warmupSeconds)).")
    var warmupSeconds = defaults.warmupSeconds

    @Option(parsing: .unconditional, help: "Distinct images in the feed (default: rows/2, at most 2000) \(FlagRanges.help(FlagRanges.images)), at most \(FlagRanges.embeddedImages.upperBound) for the embedded server.")
    var images: Int?

    @Option(help: "How rows pick images: sequential (row i shows entry i, wrapping; the default for a manifest) or zipf (skewed popularity; the default otherwise).")
    var feed: String?

    @Option(parsing: .unconditional, help: "Per-request timeout in seconds \(FlagRanges.help(FlagRanges.timeoutSeconds)).")
    var timeout = defaults.timeoutSeconds

    @Option(name: .customLong("stall-timeout"), parsing: .unconditional, help: "Fail a transfer that receives nothing for this many seconds (whole seconds) \(FlagRanges.help(FlagRanges.stallTimeoutSeconds)).")
    var stallTimeout = defaults.stallTimeoutSeconds

    @Option(parsing: .unconditional, help: "Retry a fetch that timed out, lost its connection or got a 5xx/429 this many times (backoff 100 ms, doubling) \(FlagRanges.help(FlagRanges.retries)).")
    var retries = defaults.retries

    @Option(help: "Faults the embedded server injects, e.g. 'error=2%,reset=1%,stall=1%,truncate=1%' (deterministic by seed).")
    var faults: String?

    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: "Refuse images whose header promises more pixels \(FlagRanges.help(FlagRanges.maxPixels)).")
    var maxPixels = defaults.maxPixels

    @Option(name: .customLong("max-bytes"), parsing: .unconditional, help: "Refuse bodies larger than this many bytes \(FlagRanges.help(FlagRanges.maxBytes)).")
    var maxBytes = defaults.maxBytes

    @Option(parsing: .unconditional, help: "Simulated users in this process, each with its own trace (seed + index), viewport and memory cache \(FlagRanges.help(FlagRanges.clients)).")
    var clients = defaults.clients

    @Option(help: "Run only the I-th of N slices of the clients, e.g. 2/4 (join the shards with imgbench merge).")
    var shard: String?

    @Flag(name: .customLong("no-decode"), help: "Fetch and discard (no decode, no filter): more load per machine when the server is under test.")
    var noDecode = false

    @Option(help: "Testing aid: slow a stage on purpose, e.g. 'latency=+20%' or 'decode=+3ms' (latency, decode, filter).")
    var inject: String?

    @Option(help: "Results directory (default: imgbench-results/<timestamp>).")
    var out: String?

    @Flag(help: "No progress output.")
    var quiet = false

    @Flag(help: "Write into an --out directory that already holds files (the ones imgbench writes are replaced).")
    var force = false

    func validate() throws {
        _ = try plan()
    }

    func run() throws {
        let plan = try plan()
        let directory = URL(fileURLWithPath: out ?? "imgbench-results/\(Timestamp.now())")
        let existing = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        if let existing, !existing.isEmpty, !force {
            throw CommandFailure("--out \(directory.path) is not empty: pass --force to write into it (imgbench's files are replaced)",
                                 status: 64)
        }
        try CommandFailure.catching("cannot write results to \(directory.path)") {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            guard FileManager.default.isWritableFile(atPath: directory.path) else { throw CocoaError(.fileWriteNoPermission) }
        }
        // A run that fails before writing anything leaves no empty directory behind it.
        var written = false
        defer {
            if !written, existing == nil, (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true {
                try? FileManager.default.removeItem(at: directory)
            }
        }
        let stop = StopRequest()
        let trap = SignalTrap(stopping: stop)
        defer { withExtendedLifetime(trap) {} }
        let results = try CommandFailure.catching("the run could not be done") {
            try Benchmark.run(plan, observer: TerminalProgress(quiet: quiet), stop: stop)
        }
        try CommandFailure.catching("cannot write results to \(directory.path)") { try Reports.write(results, to: directory) }
        written = true
        if !results.results.isEmpty { print(Verdict(results).lines.joined(separator: "\n") + "\n") }
        print(ComparisonTable(results).text(bold: TerminalStyle.allowsBold(STDOUT_FILENO)))
        print("\nResults: \(directory.path)/ (\(Reports.all.map(\.fileName).joined(separator: ", ")))")
        if let reason = results.nothingLoaded { throw CommandFailure(reason) }
        if let reason = results.stoppedBy {
            throw CommandFailure("stopped by \(reason): partial results (\(results.results.count) of \(plan.measuredRuns) runs)",
                                 status: SignalTrap.exitStatus(for: reason))
        }
    }

    /// The flags as options, one field each.
    var options: RunOptions {
        var options = RunOptions()
        options.rows = rows
        options.concurrency = concurrency
        options.strategies = strategies
        options.transport = transport
        options.network = network
        options.source = source
        options.scroll = scroll
        options.fps = fps
        options.seed = seed
        options.filter = filter
        options.cancel = cancel
        options.coalesce = coalesce
        options.memoryCacheMB = memoryCacheMB
        options.diskCache = diskCache
        options.diskCacheMB = diskCacheMB
        options.diskRead = diskRead
        options.prefetch = prefetch
        options.repeats = `repeat`
        options.warmup = warmup
        options.warmupSeconds = warmupSeconds
        options.images = images
        options.feed = feed
        options.timeoutSeconds = timeout
        options.stallTimeoutSeconds = stallTimeout
        options.retries = retries
        options.faults = faults
        options.maxPixels = maxPixels
        options.maxBytes = maxBytes
        options.clients = clients
        options.shard = shard
        options.decodes = !noDecode
        options.inject = inject
        return options
    }

    func plan() throws -> BenchmarkPlan {
        do {
            return try options.plan()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The plan `imgbench run ARGUMENTS` would run: how a directory written by imgbench 0.1 (its
    /// recorded arguments) is read, and what a gate side's extra arguments make of a plan.
    static func plan(arguments: [String]) throws -> BenchmarkPlan {
        try parse(arguments).plan()
    }
}
