import ArgumentParser
import Foundation
import ImageBench

/// `imgbench run`: parses the flags into a plan, runs it, writes the results directory.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Scroll a simulated feed and measure each strategy × concurrency limit.")

    @Option(help: "Rows in the table.")
    var rows = 5_000

    @Option(help: "Concurrency limits, comma-separated (each is a matrix column).")
    var concurrency = "5"

    @Option(help: "Strategies, comma-separated, or all: \(StrategyKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var strategies = StrategyKind.defaults.map(\.rawValue).joined(separator: ",")

    @Option(help: "HTTP transport: blocking (an easy handle per worker) or multi (curl multi on one thread).")
    var transport = TransportKind.blocking.rawValue

    @Option(help: "Network profile of the embedded server: loopback, wifi (default), lte, 3g, edge, or latency=80ms,jitter=20ms,bandwidth=2MB/s.")
    var network: String?

    @Option(help: "Images from elsewhere: a URL template with {id} or {row} (http://host/img/{id}.jpg), or a manifest file (.json, .csv, .plist).")
    var source: String?

    @Option(help: "Scroll profile: \(ScrollProfile.allCases.map(\.rawValue).joined(separator: ", ")).")
    var scroll = ScrollProfile.fling.rawValue

    @Option(help: "Main-loop frame rate.")
    var fps = 60

    @Option(help: "Seed for the trace, the feed, the images and the per-URL delays.")
    var seed: UInt64 = 1

    @Option(help: "Filter after decoding: \(ImageFilter.allCases.map(\.rawValue).joined(separator: ", ")).")
    var filter = ImageFilter.sepia.rawValue

    @Option(help: "What to do with loads of rows that left the screen: \(CancelPolicy.allCases.map(\.rawValue).joined(separator: ", ")).")
    var cancel = CancelPolicy.offscreen.rawValue

    @Flag(inversion: .prefixedNo, help: "Merge loads of the same URL into one fetch and decode.")
    var coalesce = true

    @Option(name: .customLong("memory-cache-mb"), help: "Memory cache limit in MB of decoded pixels.")
    var memoryCacheMB = MemoryCache.defaultCostLimit / 1_048_576

    @Option(name: .customLong("disk-cache"), help: "Disk cache directory, kept between runs (default: no disk cache).")
    var diskCache: String?

    @Option(name: .customLong("disk-cache-mb"), help: "Disk cache size limit in MB.")
    var diskCacheMB = DiskCache.defaultSizeLimit / 1_048_576

    @Option(name: .customLong("disk-read"), help: "Where disk cache hits are read and decoded: background or main (inside cellForRow).")
    var diskRead = DiskReadMode.background.rawValue

    @Option(help: "Rows ahead of the viewport to load at low priority.")
    var prefetch = 0

    @Option(help: "Repeat each cell this many times.")
    var `repeat` = 1

    @Option(help: "Rounds of every cell to run first and not count.")
    var warmup = 0

    @Option(help: "Distinct images in the feed (default: rows/2, at most 2000).")
    var images: Int?

    @Option(help: "Per-request timeout in seconds.")
    var timeout = 10.0

    @Option(name: .customLong("stall-timeout"), help: "Fail a transfer that receives nothing for this many seconds (whole seconds).")
    var stallTimeout = 5

    @Option(help: "Retry a fetch that timed out, lost its connection or got a 5xx/429 this many times (backoff 100 ms, doubling).")
    var retries = 0

    @Option(help: "Faults the embedded server injects, e.g. 'error=2%,reset=1%,stall=1%,truncate=1%' (deterministic by seed).")
    var faults: String?

    @Option(name: .customLong("max-pixels"), help: "Refuse images whose header promises more pixels.")
    var maxPixels = DecodeLimits().maxPixels

    @Option(name: .customLong("max-bytes"), help: "Refuse bodies larger than this many bytes.")
    var maxBytes = FetchLimits().maxBytes

    @Option(help: "Simulated users in this process, each with its own trace (seed + index), viewport and memory cache.")
    var clients = 1

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

    func validate() throws {
        _ = try makePlan()
    }

    func run() throws {
        let plan = try makePlan()
        let directory = URL(fileURLWithPath: out ?? "imgbench-results/\(Timestamp.now())")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            guard FileManager.default.isWritableFile(atPath: directory.path) else { throw CocoaError(.fileWriteNoPermission) }
        } catch {
            FileHandle.standardError.write(Data("imgbench: cannot write results to \(directory.path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
        let results: BenchmarkResults
        let stop = StopRequest()
        let trap = SignalTrap(stopping: stop)
        defer { withExtendedLifetime(trap) {} }
        do {
            results = try Benchmark.run(plan, observer: TerminalProgress(quiet: quiet), stop: stop)
        } catch {
            FileHandle.standardError.write(Data("imgbench: the run could not be done: \(error)\n".utf8))
            throw ExitCode(2)
        }
        try Reports.write(results, to: directory)
        print(ComparisonTable(results.results).text(bold: isatty(STDOUT_FILENO) == 1))
        print("\nResults: \(directory.path)/ (\(Reports.all.map(\.fileName).joined(separator: ", ")))")
        if let reason = results.nothingLoaded {
            FileHandle.standardError.write(Data("imgbench: \(reason)\n".utf8))
            throw ExitCode(2)
        }
        if let reason = results.stoppedBy {
            FileHandle.standardError.write(Data("imgbench: stopped by \(reason): partial results (\(results.results.count) of \(plan.measuredRuns) runs)\n".utf8))
            throw ExitCode(SignalTrap.exitStatus(for: reason))
        }
    }

    func makePlan() throws -> BenchmarkPlan {
        var settings = RunSettings()
        guard rows > 0 else { throw ValidationError("--rows must be at least 1 (got \(rows))") }
        settings.rows = rows
        guard (1...240).contains(fps) else { throw ValidationError("--fps must be between 1 and 240 (got \(fps))") }
        settings.fps = fps
        settings.seed = seed
        settings.scroll = try Self.parse(scroll, as: ScrollProfile.self, flag: "--scroll")
        settings.filter = try Self.parse(filter, as: ImageFilter.self, flag: "--filter")
        settings.cancelPolicy = try Self.parse(cancel, as: CancelPolicy.self, flag: "--cancel")
        settings.transport = try Self.parse(transport, as: TransportKind.self, flag: "--transport")
        do {
            settings.network = try NetworkProfile(parsing: network ?? "wifi")
        } catch {
            throw ValidationError("--network: \(error)")
        }
        if let source {
            do {
                settings.source = try ImageSource(parsing: source)
            } catch {
                throw ValidationError(error.description)
            }
            for (flag, given) in [("--network", network != nil), ("--faults", faults != nil)] where given {
                throw ValidationError("\(flag) shapes the embedded server; a --source server is used as it is")
            }
            // Not shaped by imgbench: whatever the real network and server do.
            settings.network = NetworkProfile(name: "source", latencyMilliseconds: 0, jitterMilliseconds: 0, bandwidthBytesPerSecond: nil)
        }
        settings.coalesce = coalesce
        if let inject {
            do {
                settings.injection = try FaultInjection(parsing: inject)
            } catch {
                throw ValidationError(error.description)
            }
        }
        settings.diskRead = try Self.parse(diskRead, as: DiskReadMode.self, flag: "--disk-read")
        if let diskCache {
            guard !diskCache.isEmpty else { throw ValidationError("--disk-cache needs a directory") }
            settings.diskCacheDirectory = diskCache
        }
        guard diskCacheMB > 0 else { throw ValidationError("--disk-cache-mb must be at least 1 (got \(diskCacheMB))") }
        settings.diskCacheBytes = diskCacheMB * 1_048_576
        guard prefetch >= 0 else { throw ValidationError("--prefetch must not be negative (got \(prefetch))") }
        settings.prefetch = prefetch
        guard memoryCacheMB >= 0 else { throw ValidationError("--memory-cache-mb must not be negative") }
        settings.memoryCacheBytes = memoryCacheMB * 1_048_576
        guard timeout > 0 else { throw ValidationError("--timeout must be positive (got \(timeout))") }
        guard stallTimeout > 0 else { throw ValidationError("--stall-timeout must be at least 1 (got \(stallTimeout))") }
        settings.fetchLimits = FetchLimits(timeoutMilliseconds: Int(timeout * 1000), maxBytes: maxBytes,
                                           stallMilliseconds: stallTimeout * 1000)
        guard retries >= 0 else { throw ValidationError("--retries must not be negative (got \(retries))") }
        settings.retry = RetryPolicy(retries: retries)
        if let faults {
            do {
                settings.faults = try ServerFaults(parsing: faults)
            } catch {
                throw ValidationError(error.description)
            }
        }
        guard maxPixels > 0, maxBytes > 0 else { throw ValidationError("--max-pixels and --max-bytes must be positive") }
        settings.decodeLimits = DecodeLimits(maxPixels: maxPixels)
        if let images {
            guard images > 0 else { throw ValidationError("--images must be at least 1 (got \(images))") }
            settings.imageCount = images
        }
        guard clients > 0 else { throw ValidationError("--clients must be at least 1 (got \(clients))") }
        settings.clients = clients
        settings.decodes = !noDecode
        if clients > 1 && diskCache != nil {
            throw ValidationError("--disk-cache with --clients: each simulated user would need a cache of its own (not supported)")
        }
        if let shard {
            let parts = shard.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
                throw ValidationError("--shard: '\(shard)' is not I/N with 1 ≤ I ≤ N, e.g. 2/4")
            }
            guard parts[1] <= clients else {
                throw ValidationError("--shard \(shard): \(parts[1]) shards need at least \(parts[1]) --clients (got \(clients))")
            }
            // Contiguous slices, as even as they can be.
            settings.clientSlice = (parts[0] - 1) * clients / parts[1] ..< parts[0] * clients / parts[1]
        }
        guard `repeat` > 0 else { throw ValidationError("--repeat must be at least 1 (got \(`repeat`))") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative (got \(warmup))") }

        let limits = try Self.list(concurrency, flag: "--concurrency").map { text in
            guard let value = Int(text), value > 0 else {
                throw ValidationError("--concurrency: '\(text)' is not a whole number of at least 1")
            }
            return value
        }
        let kinds: [StrategyKind]
        if strategies == "all" {
            kinds = StrategyKind.allCases
        } else {
            kinds = try Self.list(strategies, flag: "--strategies").map {
                try Self.parse($0, as: StrategyKind.self, flag: "--strategies")
            }
        }
        var plan = BenchmarkPlan(settings: settings, strategies: kinds, concurrencies: limits, repeats: `repeat`,
                                 warmups: warmup)
        plan.arguments = Self.reproducingArguments(Array(CommandLine.arguments.dropFirst()))
        return plan
    }

    /// The arguments of this invocation that decide what is measured: the subcommand name and the
    /// output options (`--out`, `--quiet`) are left out, so a gate can run them again elsewhere.
    static func reproducingArguments(_ arguments: [String]) -> [String] {
        let rest = arguments.first == configuration.commandName ? Array(arguments.dropFirst()) : arguments
        return removing(options: ["--out"], switches: ["--quiet"], from: rest)
    }

    /// `arguments` without the given options (`--out DIR` or `--out=DIR`) and switches.
    static func removing(options: Set<String>, switches: Set<String> = [], from arguments: [String]) -> [String] {
        var kept: [String] = []
        var skipValue = false
        for argument in arguments {
            if skipValue { skipValue = false; continue }
            if options.contains(argument) { skipValue = true; continue }
            if switches.contains(argument) || options.contains(where: { argument.hasPrefix($0 + "=") }) { continue }
            kept.append(argument)
        }
        return kept
    }

    /// The plan a run's recorded arguments describe (`imgbench merge`, `imgbench report`), which
    /// keeps those arguments as its record. `--shard` is ignored: the plan covers all the clients.
    static func plan(recorded arguments: [String]) throws -> BenchmarkPlan {
        var plan = try parse(removing(options: ["--shard"], from: arguments)).makePlan()
        plan.arguments = arguments
        return plan
    }

    private static func list(_ text: String, flag: String) throws -> [String] {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw ValidationError("\(flag) needs at least one value") }
        return items
    }

    private static func parse<T: RawRepresentable & CaseIterable>(_ text: String, as type: T.Type, flag: String) throws -> T
    where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            let valid = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("\(flag): unknown value '\(text)' (valid: \(valid))")
        }
        return value
    }
}
