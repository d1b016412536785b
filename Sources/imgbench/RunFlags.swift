import ArgumentParser
import ImageBench

// `imgbench run`'s flags in the groups --help shows them in. Each group maps its flags onto
// `RunOptions`, and nothing else: every rule about them lives in the library.

private let defaults = RunOptions()

/// The feed and its scrolling.
struct WorkloadFlags: ParsableArguments {
    @Option(parsing: .unconditional, help: "Rows in the table \(FlagRanges.help(FlagRanges.rows)).")
    var rows = defaults.rows

    @Option(parsing: .unconditional, help: "Distinct images in the feed (default: rows/2, at most 2000) \(FlagRanges.help(FlagRanges.images)), at most \(FlagRanges.embeddedImages.upperBound) for the embedded server.")
    var images: Int?

    @Option(help: "How rows pick images: sequential (row i shows entry i, wrapping; the default for a manifest) or zipf (skewed popularity; the default otherwise).", completion: .list(FeedOrder.allCases.map(\.rawValue)))
    var feed: String?

    @Option(help: "Images from elsewhere: a URL template with {id} or {row} (http://host/img/{id}.jpg), a manifest's URL (http://host/manifest.json), or a manifest file (.json, .csv, .plist).", completion: .file(extensions: ["json", "csv", "plist"]))
    var source: String?

    @Option(help: "Seed for the trace, the feed, the images and the per-URL delays.")
    var seed = defaults.seed

    @Option(help: "Scroll profile: \(ScrollProfile.allCases.map(\.rawValue).joined(separator: ", ")).", completion: .list(ScrollProfile.allCases.map(\.rawValue)))
    var scroll = defaults.scroll

    @Option(parsing: .unconditional, help: "Main-loop frame rate \(FlagRanges.help(FlagRanges.fps)).")
    var fps = defaults.fps

    @Flag(name: .customLong("no-corpus-cache"), help: "Generate the embedded server's images afresh instead of loading them from $XDG_CACHE_HOME/imgbench (~/.cache/imgbench), where they are kept and verified.")
    var noCorpusCache = false

    /// Where generated images are kept between starts (not part of the plan: it changes no byte).
    var corpusCache: CorpusCache? { noCorpusCache ? nil : .standard() }

    func apply(to options: inout RunOptions) {
        options.rows = rows
        options.images = images
        options.feed = feed
        options.source = source
        options.seed = seed
        options.scroll = scroll
        options.fps = fps
    }
}

/// The pipeline: strategies, caches and policies.
struct StrategyFlags: ParsableArguments {
    @Option(help: "Strategies, comma-separated, or all: \(StrategyKind.allCases.map(\.rawValue).joined(separator: ", ")) (events with --transport multi only).", completion: .list(["all"] + StrategyKind.allCases.map(\.rawValue)))
    var strategies = defaults.strategies

    @Option(parsing: .unconditional, help: "Concurrency limits, comma-separated (each is a matrix column) \(FlagRanges.help(FlagRanges.concurrency)).")
    var concurrency = defaults.concurrency

    @Option(help: "Corpus formats, comma-separated (each is a matrix column, the same pictures in each): \(CorpusFormat.all.map(\.description).joined(separator: ", ")). jpeg+png is the default mix; with --source, a URL template with {ext}.", completion: .list(CorpusFormat.all.map(\.description)))
    var formats = defaults.formats

    @Option(help: "HTTP transport: blocking (an easy handle per worker) or multi (curl multi on one thread).", completion: .list(TransportKind.allCases.map(\.rawValue)))
    var transport = defaults.transport

    @Option(help: "Filter after decoding: \(ImageFilter.allCases.map(\.rawValue).joined(separator: ", ")).", completion: .list(ImageFilter.allCases.map(\.rawValue)))
    var filter = defaults.filter

    @Option(help: "What to do with loads of rows that left the screen: \(CancelPolicy.allCases.map(\.rawValue).joined(separator: ", ")); a list (none,offscreen) compares them, each a matrix column.", completion: .list(CancelPolicy.allCases.map(\.rawValue)))
    var cancel = defaults.cancel

    @Flag(inversion: .prefixedNo, help: "Merge loads of the same URL into one fetch and decode.")
    var coalesce = defaults.coalesce

    @Option(parsing: .unconditional, help: "Rows ahead of the viewport to load at low priority \(FlagRanges.help(FlagRanges.prefetch)); a list (0,10) compares them.")
    var prefetch = defaults.prefetch

    @Option(name: .customLong("decode-concurrency"), parsing: .unconditional, help: "Decode on a queue of its own with this many threads \(FlagRanges.help(FlagRanges.stageConcurrency)): a load gives its slot back once its bytes are in (default: decode inside the load's slot).")
    var decodeConcurrency: Int?

    @Option(name: .customLong("filter-concurrency"), parsing: .unconditional, help: "Filter on a queue of its own with this many threads \(FlagRanges.help(FlagRanges.stageConcurrency)) (default: where the decode ran).")
    var filterConcurrency: Int?

    @Flag(help: "Show progressive JPEGs at their first complete scan while they download, then refined (as Nuke and PINRemoteImage do).")
    var progressive = false

    @Flag(help: "Keep what cancelled downloads received and ask only for the rest (Range, If-Range) when the image is wanted again.")
    var resume = false

    @Option(name: .customLong("memory-cache-mb"), parsing: .unconditional, help: "Memory cache limit in MB (10^6 bytes) of decoded pixels \(FlagRanges.help(FlagRanges.memoryCacheMB)); a list (16,64) compares them.")
    var memoryCacheMB = defaults.memoryCacheMB

    @Option(name: .customLong("disk-cache"), help: "Disk cache directory, kept between runs (default: no disk cache).", completion: .directory)
    var diskCache: String?

    @Option(name: .customLong("disk-cache-mb"), parsing: .unconditional, help: "Disk cache size limit in MB (10^6 bytes) \(FlagRanges.help(FlagRanges.diskCacheMB)).")
    var diskCacheMB = defaults.diskCacheMB

    @Option(name: .customLong("disk-read"), help: "Where disk cache hits are read and decoded: background or main (inside cellForRow).", completion: .list(DiskReadMode.allCases.map(\.rawValue)))
    var diskRead = defaults.diskRead

    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: "Refuse images whose header promises more pixels \(FlagRanges.help(FlagRanges.maxPixels)).")
    var maxPixels = defaults.maxPixels

    @Option(name: .customLong("max-decode-mb"), parsing: .unconditional, help: "Memory one decode may allocate beyond the cell's image, in MB (10^6 bytes) \(FlagRanges.help(FlagRanges.maxDecodeMB)): full-size bitmaps (interlaced PNG, AVIF, GIF), progressive JPEG coefficients, lossless WebP; an image over it is a too_large error.")
    var maxDecodeMB = defaults.maxDecodeMB

    func apply(to options: inout RunOptions) {
        options.strategies = strategies
        options.concurrency = concurrency
        options.formats = formats
        options.transport = transport
        options.filter = filter
        options.cancel = cancel
        options.coalesce = coalesce
        options.prefetch = prefetch
        options.decodeConcurrency = decodeConcurrency
        options.progressive = progressive
        options.resume = resume
        options.filterConcurrency = filterConcurrency
        options.memoryCacheMB = memoryCacheMB
        options.diskCache = diskCache
        options.diskCacheMB = diskCacheMB
        options.diskRead = diskRead
        options.maxPixels = maxPixels
        options.maxDecodeMB = maxDecodeMB
    }
}

/// The network and the server.
struct NetworkFlags: ParsableArguments {
    @Option(help: "Network profile of the embedded server: loopback, wifi (default), lte, 3g, edge, or latency=80ms,jitter=20ms,bandwidth=2MB/s.", completion: .list(["loopback", "wifi", "lte", "3g", "edge"]))
    var network: String?

    @Option(help: "Faults the embedded server injects, e.g. 'error=2%,reset=1%,stall=1%,truncate=1%' (deterministic by seed).")
    var faults: String?

    @Option(parsing: .unconditional, help: "Per-request timeout in seconds \(FlagRanges.help(FlagRanges.timeoutSeconds)), the decode included: a decode still running that long after its fetch began stops as a timeout.")
    var timeout = defaults.timeoutSeconds

    @Option(name: .customLong("stall-timeout"), parsing: .unconditional, help: "Fail a transfer that receives nothing for this many seconds (whole seconds) \(FlagRanges.help(FlagRanges.stallTimeoutSeconds)).")
    var stallTimeout = defaults.stallTimeoutSeconds

    @Option(parsing: .unconditional, help: "Retry a fetch that timed out, lost its connection or got a 5xx/429 this many times (backoff 100 ms, doubling) \(FlagRanges.help(FlagRanges.retries)).")
    var retries = defaults.retries

    @Option(name: .customLong("max-bytes"), parsing: .unconditional, help: "Refuse bodies larger than this many bytes \(FlagRanges.help(FlagRanges.maxBytes)).")
    var maxBytes = defaults.maxBytes

    func apply(to options: inout RunOptions) {
        options.network = network
        options.faults = faults
        options.timeoutSeconds = timeout
        options.stallTimeoutSeconds = stallTimeout
        options.retries = retries
        options.maxBytes = maxBytes
    }
}

/// Load: many users, many machines.
struct LoadFlags: ParsableArguments {
    @Option(parsing: .unconditional, help: "Simulated users in this process, each with its own trace (seed + index), viewport and memory cache \(FlagRanges.help(FlagRanges.clients)).")
    var clients: Int?

    @Option(help: "Closed model: the --clients users scroll session after session for this long, e.g. 30s, 2m (0.1 s to 24 h).")
    var duration: String?

    @Option(help: "Closed model, ramping: the number of users scrolling follows straight lines to each stage's target, e.g. 30s:100,2m:100,30s:0 (sets the users and the duration).")
    var stages: String?

    @Option(name: .customLong("arrival-rate"), help: "Open model: a new user arrives at this rate for --duration and scrolls one session, however slow the server, e.g. 5/s, 300/m.")
    var arrivalRate: String?

    @Option(help: "Run only the I-th of N slices of the clients, e.g. 2/4 (join the shards with imgbench merge).")
    var shard: String?

    @Flag(name: .customLong("no-decode"), help: "Fetch and discard (no decode, no filter): more load per machine when the server is under test.")
    var noDecode = false

    func apply(to options: inout RunOptions) {
        options.clients = clients ?? defaults.clients
        options.clientsGiven = clients != nil
        options.duration = duration
        options.stages = stages
        options.arrivalRate = arrivalRate
        options.shard = shard
        options.decodes = !noDecode
    }
}

/// Measurement.
struct MeasurementFlags: ParsableArguments {
    @Option(parsing: .unconditional, help: "Repeat each cell this many times \(FlagRanges.help(FlagRanges.repeats)).")
    var `repeat` = defaults.repeats

    @Option(parsing: .unconditional, help: "Rounds of every cell to run first and not count \(FlagRanges.help(FlagRanges.warmup)).")
    var warmup = defaults.warmup

    @Option(parsing: .unconditional, help: "Seconds of the trace each cell plays just before every measured run, not counted; 0: none \(FlagRanges.help(FlagRanges.warmupSeconds)).")
    var warmupSeconds = defaults.warmupSeconds

    func apply(to options: inout RunOptions) {
        options.repeats = `repeat`
        options.warmup = warmup
        options.warmupSeconds = warmupSeconds
    }
}

/// Testing aids.
struct TestingFlags: ParsableArguments {
    @Option(help: "Testing aid: slow a stage on purpose, e.g. 'latency=+20%' or 'decode=+3ms' (latency, decode, filter).")
    var inject: String?

    func apply(to options: inout RunOptions) {
        options.inject = inject
    }
}

/// Output.
struct OutputFlags: ParsableArguments {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "Results directory (default: imgbench-results/<timestamp>).", completion: .directory)
    var out: String?

    @Flag(help: "No progress output.")
    var quiet = false

    @Flag(help: "Write into an --out directory that already holds files (the ones imgbench writes are replaced).")
    var force = false

    @Option(help: "What goes to stdout: text (the verdict and the table) or json (summary.json, for jq; the verdict and the table go to stderr).")
    var format = Format.text

    @Option(name: .customLong("threshold"),
            help: "A limit every run must keep, e.g. 'latency_p95_ms < 100' (also <=, >, >=; any metric of summary.csv); repeatable. One broken: exit 1 after the reports are written.")
    var thresholds: [String] = []

    /// The thresholds, checked as the command line is parsed (a bad one is a usage error, 64).
    func parsedThresholds() throws -> [Threshold] {
        do {
            return try RunThresholds.parse(thresholds)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
