import Foundation

/// Hears what a benchmark is doing, for progress output.
public protocol BenchmarkObserver: Sendable {
    func preparing(_ message: String)
    func corpusProgress(done: Int, total: Int)
    func runStarted(_ cell: RunCell, index: Int, of total: Int)
    func runProgress(_ cell: RunCell, _ progress: RunProgress)
    func runFinished(_ result: RunResult)
    /// The whole test's plan, before its first run: what progress weighs the runs by.
    func testPlanned(_ estimate: TestEstimate)
    /// Every run is done (`stoppedBy` nil) or the test was stopped.
    func testEnded(stoppedBy: String?)
}

extension BenchmarkObserver {
    public func testPlanned(_ estimate: TestEstimate) {}
    public func testEnded(stoppedBy: String?) {}
}

/// Everything a benchmark measured, with what it ran on.
public struct BenchmarkResults: Sendable {
    let plan: BenchmarkPlan
    public let results: [RunResult]
    let corpusImages: Int
    let corpusBytes: Int
    let serverURL: String
    let traceSeconds: Double
    let startedAt: Date
    let environment: RunEnvironment
    /// Why the benchmark ended early ("SIGINT"), or nil when every run completed.
    public var stoppedBy: String? = nil
    /// `--threshold` limits and how the runs kept them (summary.json lists them).
    public var thresholdChecks: [ThresholdCheck] = []

    var partial: Bool { stoppedBy != nil }

    /// The error rate of the verdict's intervals and tests: 5%, split over a budget's looks.
    var alpha: Double { plan.budget?.alpha ?? 0.05 }

    /// `body` with every interval and test at this run's level (`Confidence`), and every cell
    /// judged by its `--max-error-rate` (`ErrorLimit`).
    public func atItsConfidence<T>(_ body: () throws -> T) rethrows -> T {
        try ErrorLimit.$maxRate.withValue(plan.errorLimit) { try Confidence.$alpha.withValue(alpha, operation: body) }
    }
}

/// Why a benchmark could not be done at all (exit 2).
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}

/// Runs a plan: prepares the workload (for the embedded source: generates the corpus and starts
/// the server with the network profile; for a URL template or manifest: checks the first URL
/// answers), generates the trace, then runs every cell on that same workload.
public enum Benchmark {
    /// `corpusCache`: where generated images are kept between starts (nil, the library's default:
    /// generate them all and touch no disk; the command line passes the standard place).
    /// `metrics`: where measured runs report as they go (`--metrics-address`).
    public static func run(_ plan: BenchmarkPlan, observer: (any BenchmarkObserver)? = nil,
                           stop: StopRequest? = nil, corpusCache: CorpusCache? = nil, metrics: LiveMetrics? = nil) throws -> BenchmarkResults {
        // The budget (`--budget`) is the user's time: the default clock's.
        let startedAt = Date(), startedClock = MonotonicClock().now()
        // Stopped while preparing: nothing measured, and it says why (the reason is read when it
        // is known, not before the corpus began).
        func stopped(_ plan: BenchmarkPlan) -> BenchmarkResults {
            BenchmarkResults(plan: plan, results: [], corpusImages: 0, corpusBytes: 0, serverURL: "", traceSeconds: 0,
                             startedAt: startedAt, environment: RunEnvironment.capture(), stoppedBy: stop?.reason ?? "a stop request")
        }
        var plan = plan
        if case .manifestURL(let url) = plan.settings.source {
            observer?.preparing("fetching the manifest at \(url)")
            // The results keep the entries, as for a manifest file: the directory stays readable.
            let fetched: Result<ImageSource, BenchmarkError> = Result { () throws(BenchmarkError) in
                try fetchManifest(url, limits: plan.settings.fetchLimits, reach: plan.settings.manifestReach, stop: stop)
            }
            if stop?.isRequested == true { return stopped(plan) }
            plan.settings.source = try fetched.get()
            plan.settings.keepManifestEntriesInUse()
        }
        let settings = plan.settings
        // A plan the machine cannot hold is refused before anything is allocated.
        try MemoryEstimate(plan).check()
        // Checked before any work: an unusable cache directory fails the run at once.
        let diskCaches = try settings.diskCacheDirectory.map { path throws(DiskCache.OpenError) in
            try DiskCacheWorkspace(directory: URL(fileURLWithPath: path), sizeLimit: settings.diskCacheBytes)
        }
        var prepared = PreparedWorkloads(), server: ImageServer?, trustedCA: String?, certificates: RunCertificates?, namesUsers = true
        defer { certificates?.remove() }
        if case .embedded = settings.source {
            let imageCount = settings.resolvedImageCount
            var corpora: [ImageCorpus] = []
            for format in plan.formats where stop?.isRequested != true {
                observer?.preparing("generating \(imageCount) images (seed \(settings.seed), \(format))"
                                    + (corpusCache.map { ", or loading them from \($0.directory.path)" } ?? ""))
                let corpus = ImageCorpus.generate(count: imageCount, seed: settings.seed, format: format, cache: corpusCache, progress: { done in
                    observer?.corpusProgress(done: done, total: imageCount)
                }, shouldStop: { stop?.isRequested == true })
                if corpusCache != nil && stop?.isRequested != true {
                    observer?.preparing("\(corpus.fromCache) of \(imageCount) images from the corpus cache"
                                        + (corpus.damagedInCache > 0 ? ", \(corpus.damagedInCache) damaged there and made again" : ""))
                }
                corpora.append(corpus)
            }
            if stop?.isRequested == true { return stopped(plan) }
            // `--tls`: a CA and a server certificate made for this run; the run's client trusts
            // that CA alone (the recorded plan keeps no path: the files go with the run).
            if settings.tls == true && !settings.isVirtual { certificates = try RunCertificates() }
            let embedded = settings.isVirtual ? nil  // --time virtual: no server; the model answers
                : try ImageServer(files: ServedFiles(corpora: corpora), profile: settings.injection.applied(to: settings.network),
                                  seed: settings.seed, faults: settings.faults, drawsPerPicture: plan.formats != [.mixed],
                                  tls: certificates?.identity)
            trustedCA = certificates?.caFile
            let baseURL = embedded?.baseURL ?? virtualBaseURL
            for (format, corpus) in zip(plan.formats, corpora) {
                observer?.preparing("\(embedded == nil ? "modelling" : "serving") \(corpus.images.count) \(format) images "
                                    + "(\(corpus.totalBytes / 1024) kB) at \(baseURL), network \(settings.network)")
                prepared.byFormat[format] = makeWorkload(settings: settings, corpus: corpus, baseURL: baseURL)
            }
            (prepared.corpusImages, prepared.corpusBytes) = (corpora[0].images.count, corpora[0].totalBytes)
            server = embedded
        } else {
            for format in plan.formats {
                let workload = makeWorkload(settings: settings, format: format)
                prepared.byFormat[format] = workload
                observer?.preparing("source \(settings.source.description)\(plan.formats.count > 1 ? " (\(format))" : ""): "
                                    + "\(workload.images.count) images for \(settings.rows) rows")
                namesUsers = try preflight(workload.images[workload.feed.imageForRow[0]].url, limits: settings.fetchLimits, stop: stop)
                if stop?.isRequested == true { return stopped(plan) }
            }
            let first = prepared.workload(plan.formats[0])
            (prepared.corpusImages, prepared.corpusBytes) = (first.images.count, first.images.reduce(0) { CheckedNumber.sum($0, $1.expectedBytes ?? 0) })
        }
        let workload = prepared.workload(plan.formats[0])
        defer { server?.shutdown() }
        if !settings.faults.isEmpty { observer?.preparing("server faults: \(settings.faults) (deterministic by seed)") }
        if settings.injection != .none { observer?.preparing("INJECTED FAULT (testing aid): \(settings.injection)") }
        observer?.preparing(String(format: "scroll trace '%@': %.1f s, %d frames at %d fps", settings.scroll.rawValue,
                                   workload.trace.duration, workload.trace.frames.count, settings.fps))

        let cells = plan.cells
        observer?.testPlanned(TestEstimate(plan: plan, traceSeconds: workload.trace.duration))
        var results: [RunResult] = []
        defer { diskCaches?.close() }
        var runIndex = 0
        // The race below rewrites `plan` (its budget's record) while runs go on: they read this copy,
        // which trusts the run's own CA where the server has one, and names users to imgbench only.
        var runPlan = plan
        if let trustedCA { runPlan.settings.fetchLimits.caFile = trustedCA }
        runPlan.settings.fetchLimits.namesUsers = namesUsers
        // One run of a cell (its warm-up first), on its own trace; nil when stopped.
        func measure(_ cell: RunCell, total: Int) throws -> RunResult? {
            observer?.runStarted(cell, index: runIndex, of: total)
            defer { runIndex += 1 }
            let shared = prepared.workload(cell.format)
            let cellWorkload = cell.trace > 0 ? shared.session(cell.trace, ofClient: 0, settings: runPlan.settings) : shared
            if cell.repetition > 0 && runPlan.warmupSeconds > 0 && !runPlan.settings.isVirtual {
                server?.restartFaultDraws()
                warmUp(cell, seconds: runPlan.warmupSeconds, workload: cellWorkload, settings: runPlan.settings(for: cell), stop: stop, observer: observer)
                if stop?.isRequested == true { return nil }
            }
            let diskCache = try diskCaches?.cacheForRun(runIndex)
            // Every run meets the same faults on its k-th request of a path (fair across strategies).
            server?.restartFaultDraws()
            let before = server?.counts
            // The cell's own policies (`--cancel none,offscreen`) on the one workload every cell shares.
            // Only measured runs report live (warm-up rounds are not in summary.csv either).
            var result = runCell(cell, workload: cellWorkload, settings: runPlan.settings(for: cell), diskCache: diskCache, stop: stop,
                                 observer: observer, live: cell.repetition > 0 ? metrics?.cell(cell) : nil)
            if let server, let before { result.server = server.counts - before }
            if let diskCache { diskCaches?.finish(diskCache) }
            observer?.runFinished(result)
            return result
        }
        var cellSeconds: [String: Double] = [:]
        for cell in cells where stop?.isRequested != true {
            let began = MonotonicClock().now()
            guard let result = try measure(cell, total: cells.count) else { break }
            if cell.repetition > 0 { results.append(result) }
            cellSeconds[cell.name, default: 0] += Double(MonotonicClock().now() - began) / 1e9
        }
        if plan.budget != nil && stop?.isRequested != true {
            let frames = Int((workload.trace.duration * Double(settings.fps)).rounded())
            BudgetRace.run(&plan, results: &results, startedAt: startedClock, cellSeconds: cellSeconds, traceFrames: frames,
                           stop: stop, observer: observer) { cell in try? measure(cell, total: runIndex + 1) }
        }
        observer?.testEnded(stoppedBy: stop?.reason)
        return BenchmarkResults(plan: plan, results: results, corpusImages: prepared.corpusImages,
                                corpusBytes: prepared.corpusBytes, serverURL: server?.baseURL ?? settings.source.description,
                                traceSeconds: workload.trace.duration, startedAt: startedAt,
                                environment: RunEnvironment.capture(), stoppedBy: stop?.reason)
    }

    /// One run of a cell: one simulated user on this thread, or every user of this process's
    /// slice at once. `frames` cuts each user's trace short (the warm-up).
    static func runCell(_ cell: RunCell, workload: Workload, settings: RunSettings, diskCache: DiskCache? = nil,
                        frames: Int? = nil, stop: StopRequest?, observer: (any BenchmarkObserver)?,
                        live: (any LiveObserver)? = nil) -> RunResult {
        if settings.isVirtual { return runVirtualCell(cell, workload: workload.prefix(frames: frames), settings: settings, stop: stop, observer: observer) }
        if settings.clients == 1 && settings.load == nil {
            let run = ScrollRun(workload: workload.prefix(frames: frames), settings: settings, cell: cell, diskCache: diskCache, stop: stop,
                                live: live)
            return run.run { progress in observer?.runProgress(cell, progress) }
        }
        return runClients(cell, workload: workload, settings: settings, frames: frames, stop: stop, observer: observer, live: live)
    }

    /// `--warmup-seconds`: the cell plays the first seconds of its trace just before it is
    /// measured, on caches of its own (no disk cache), and the result is dropped. What it warms
    /// is the process: Dispatch's thread pool (which grows by about a thread a second while work
    /// blocks, so a cold operation-queue run reaches only part of its limit), the allocator, the
    /// code. It stops when its trace ends, cancelling what is left, rather than settling.
    static func warmUp(_ cell: RunCell, seconds: Double, workload: Workload, settings: RunSettings, stop: StopRequest?,
                       observer: (any BenchmarkObserver)?) {
        var short = settings
        short.settleSeconds = 0
        // A load model's users come and go over minutes; what warms the process is some of them
        // scrolling at once (no more than a hundred, at least one per shard).
        if short.load != nil {
            short.load = nil
            short.clients = max(min(short.clients, 100), short.shard?.count ?? 1)
        }
        let warmCell = RunCell(strategy: cell.strategy, concurrency: cell.concurrency, repetition: 0, format: cell.format,
                               variant: cell.variant)
        _ = runCell(warmCell, workload: workload, settings: short, frames: Int(seconds * Double(settings.fps)),
                    stop: stop, observer: observer)
    }

    /// The feed, URLs and trace for a corpus served at `baseURL`.
    static func makeWorkload(settings: RunSettings, corpus: ImageCorpus, baseURL: String) -> Workload {
        let feed = Self.feed(settings, imageCount: corpus.images.count)
        let images = corpus.images.map {
            ImageReference(url: "\(baseURL)/\($0.path)", cacheKey: "imgbench-corpus/seed-\(settings.seed)/\($0.path)",
                           expectedBytes: $0.bytes.count, sourcePixels: $0.size.pixelCount)
        }
        return workload(settings: settings, feed: feed, images: images)
    }

    /// The feed, URLs and trace for a URL template or a manifest. Sizes are known only where the
    /// manifest gives them.
    static func makeWorkload(settings: RunSettings, format: CorpusFormat = .mixed) -> Workload {
        switch settings.source {
        case .embedded:
            preconditionFailure("the embedded source needs its corpus")
        case .template(let named) where named.contains("{row}"):
            let template = RunSettings.template(named, format: format)
            let images = (0..<settings.rows).map { row in
                ImageReference(url: template.replacingOccurrences(of: "{row}", with: String(row))
                                   .replacingOccurrences(of: "{id}", with: String(row)), expectedBytes: nil, sourcePixels: nil)
            }
            return workload(settings: settings, feed: Feed(imageForRow: Array(0..<settings.rows), imageCount: settings.rows),
                            images: images)
        case .template(let named):
            let template = RunSettings.template(named, format: format)
            let count = settings.resolvedImageCount
            let images = (0..<count).map {
                ImageReference(url: template.replacingOccurrences(of: "{id}", with: String($0)), expectedBytes: nil, sourcePixels: nil)
            }
            return workload(settings: settings, feed: Self.feed(settings, imageCount: count), images: images)
        case .manifest(_, let entries):
            let images = entries.map { ImageReference(url: $0.url, expectedBytes: $0.bytes, sourcePixels: nil) }
            return workload(settings: settings, feed: Self.feed(settings, imageCount: images.count), images: images)
        case .manifestURL:
            preconditionFailure("a manifest URL is fetched before the workload is made")
        }
    }

    static func feed(_ settings: RunSettings, imageCount: Int) -> Feed {
        switch settings.feedOrder {
        case .sequential: Feed(sequentialRows: settings.rows, imageCount: imageCount)
        case .zipf: Feed(rows: settings.rows, imageCount: imageCount, seed: settings.seed)
        }
    }

    private static func workload(settings: RunSettings, feed: Feed, images: [ImageReference]) -> Workload {
        let viewport = Viewport(rowCount: settings.rows)
        let trace = ScrollTrace.generate(profile: settings.scroll, viewport: viewport, fps: settings.fps, seed: settings.seed)
        return Workload(feed: feed, images: images, viewport: viewport, trace: trace)
    }
}
