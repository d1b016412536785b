import Foundation

/// The matrix to run: every strategy at every concurrency limit, `repeats` times, all on one
/// workload.
public struct BenchmarkPlan: Sendable {
    public var settings: RunSettings
    public var strategies: [StrategyKind]
    public var concurrencies: [Int]
    public var repeats: Int
    /// Rounds of every cell run first and not counted (repetition 0 in progress output).
    public var warmups: Int
    /// The command-line arguments that reproduce this plan (without output options), recorded in
    /// summary.json so `imgbench gate` can run a baseline's configuration again.
    public var arguments: [String] = []

    public init(settings: RunSettings, strategies: [StrategyKind], concurrencies: [Int], repeats: Int = 1,
                warmups: Int = 0) {
        self.settings = settings
        self.strategies = strategies
        self.concurrencies = concurrencies
        self.repeats = repeats
        self.warmups = warmups
    }

    /// Runs that count (warm-ups excluded).
    public var measuredRuns: Int { strategies.count * concurrencies.count * max(1, repeats) }

    /// Cells in run order: warm-ups first, then repeats outermost, so drift over time spreads
    /// across every cell instead of favouring the ones that ran first.
    public var cells: [RunCell] {
        let round = { (repetition: Int) in
            self.strategies.flatMap { strategy in
                self.concurrencies.map { RunCell(strategy: strategy, concurrency: $0, repetition: repetition) }
            }
        }
        return (0..<warmups).flatMap { _ in round(0) } + (1...max(1, repeats)).flatMap(round)
    }
}

/// Hears what a benchmark is doing, for progress output.
public protocol BenchmarkObserver: Sendable {
    func preparing(_ message: String)
    func corpusProgress(done: Int, total: Int)
    func runStarted(_ cell: RunCell, index: Int, of total: Int)
    func runProgress(_ cell: RunCell, _ progress: RunProgress)
    func runFinished(_ result: RunResult)
}

/// Everything a benchmark measured, with what it ran on.
public struct BenchmarkResults: Sendable {
    public let plan: BenchmarkPlan
    public let results: [RunResult]
    public let corpusImages: Int
    public let corpusBytes: Int
    public let serverURL: String
    public let traceSeconds: Double
    public let startedAt: Date
    public let environment: RunEnvironment
    /// Why the benchmark ended early ("SIGINT"), or nil when every run completed.
    public var stoppedBy: String? = nil

    public var partial: Bool { stoppedBy != nil }
}

/// Runs a plan against the embedded server: generates the corpus, starts the server with the
/// network profile, generates the trace, then runs every cell on that same workload.
public enum Benchmark {
    public static func run(_ plan: BenchmarkPlan, observer: (any BenchmarkObserver)? = nil,
                           stop: StopRequest? = nil) throws -> BenchmarkResults {
        let startedAt = Date()
        let settings = plan.settings
        let imageCount = settings.resolvedImageCount
        // Checked before any work: an unusable cache directory fails the run at once.
        let diskCaches = try settings.diskCacheDirectory.map { path throws(DiskCache.OpenError) in
            try DiskCacheWorkspace(directory: URL(fileURLWithPath: path), sizeLimit: settings.diskCacheBytes)
        }
        observer?.preparing("generating \(imageCount) images (seed \(settings.seed))")
        let corpus = ImageCorpus.generate(count: imageCount, seed: settings.seed, progress: { done in
            observer?.corpusProgress(done: done, total: imageCount)
        }, shouldStop: { stop?.isRequested == true })
        if let stop, stop.isRequested {
            return BenchmarkResults(plan: plan, results: [], corpusImages: 0, corpusBytes: 0, serverURL: "",
                                    traceSeconds: 0, startedAt: startedAt, environment: RunEnvironment.capture(),
                                    stoppedBy: stop.reason)
        }
        let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: settings.injection.applied(to: settings.network),
                                     seed: settings.seed, faults: settings.faults)
        defer { server.shutdown() }
        observer?.preparing("serving \(corpus.images.count) images (\(corpus.totalBytes / 1024) kB) at \(server.baseURL), network \(settings.network)")
        let workload = makeWorkload(settings: settings, corpus: corpus, baseURL: server.baseURL)
        if !settings.faults.isEmpty { observer?.preparing("server faults: \(settings.faults) (deterministic by seed)") }
        if settings.injection != .none {
            observer?.preparing("INJECTED SLOWDOWN (testing aid): \(settings.injection)")
        }
        observer?.preparing(String(format: "scroll trace '%@': %.1f s, %d frames at %d fps", settings.scroll.rawValue,
                                   workload.trace.duration, workload.trace.frames.count, settings.fps))

        let cells = plan.cells
        var results: [RunResult] = []
        for (index, cell) in cells.enumerated() where stop?.isRequested != true {
            observer?.runStarted(cell, index: index, of: cells.count)
            let diskCache = try diskCaches?.cacheForRun(index)
            let run = ScrollRun(workload: workload, settings: settings, cell: cell, diskCache: diskCache, stop: stop)
            let before = server.counts
            var result = run.run { progress in observer?.runProgress(cell, progress) }
            result.server = server.counts - before
            if let diskCache { diskCaches?.finish(diskCache) }
            observer?.runFinished(result)
            if cell.repetition > 0 { results.append(result) }
        }
        return BenchmarkResults(plan: plan, results: results, corpusImages: corpus.images.count,
                                corpusBytes: corpus.totalBytes, serverURL: server.baseURL,
                                traceSeconds: workload.trace.duration, startedAt: startedAt,
                                environment: RunEnvironment.capture(), stoppedBy: stop?.reason)
    }

    /// The feed, URLs and trace for a corpus served at `baseURL`.
    public static func makeWorkload(settings: RunSettings, corpus: ImageCorpus, baseURL: String) -> Workload {
        let feed = Feed(rows: settings.rows, imageCount: corpus.images.count, seed: settings.seed)
        let images = corpus.images.map {
            ImageReference(url: "\(baseURL)/\($0.path)", cacheKey: "imgbench-corpus/seed-\(settings.seed)/\($0.path)",
                           expectedBytes: $0.bytes.count, sourcePixels: $0.size.pixelCount)
        }
        let viewport = Viewport(rowCount: settings.rows)
        let trace = ScrollTrace.generate(profile: settings.scroll, viewport: viewport, fps: settings.fps, seed: settings.seed)
        return Workload(feed: feed, images: images, viewport: viewport, trace: trace)
    }
}
