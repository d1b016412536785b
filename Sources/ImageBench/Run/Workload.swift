/// One cell of the matrix.
public struct RunCell: Sendable, Equatable, Hashable {
    var strategy: StrategyKind
    var concurrency: Int
    var repetition: Int
    /// The corpus format the cell downloads and decodes (`--formats`).
    var format: CorpusFormat
    /// Its values of the policies the run varies (`--cancel none,offscreen`); empty otherwise.
    var variant: PolicyVariant
    /// The trace it scrolls: the run's own (0), or a budget round's (`BenchmarkPlan.trace`).
    var trace: Int

    init(strategy: StrategyKind, concurrency: Int, repetition: Int, format: CorpusFormat = .mixed,
                variant: PolicyVariant = PolicyVariant(), trace: Int = 0) {
        self.strategy = strategy
        self.concurrency = concurrency
        self.repetition = repetition
        self.format = format
        self.variant = variant
        self.trace = trace
    }

    /// `threads ×5`, with the format where it is not the default mix (`threads ×5 avif`) and the
    /// varied policies' values (`threads ×5 cancel=none prefetch=10`).
    var name: String {
        CellName.of(strategy: strategy.rawValue, concurrency: concurrency, format: format.description) + variant.suffix
    }
}

/// How reports name a strategy × limit (× format) cell, and the key that tells cells apart.
enum CellName {
    static func of(strategy: String, concurrency: Int, format: String) -> String {
        of(strategy: strategy, concurrency: String(concurrency), format: format)
    }

    /// As read from a CSV row, where the limit is text.
    static func of(strategy: String, concurrency: String, format: String) -> String {
        "\(strategy) ×\(concurrency)" + (names(format) ? " \(format)" : "")
    }

    /// Whether a cell's name carries its format: not the default mix, nor a source without one
    /// (so results written before --formats keep their names).
    static func names(_ format: String) -> Bool {
        !format.isEmpty && format != CorpusFormat.mixed.description
    }
}

/// The image a feed row shows, as the client sees it: where to get it and, when the workload
/// knows it in advance, its size.
struct ImageReference: Sendable, Equatable {
    let url: String
    /// What caches and request merging key on: the URL, or for the embedded server a name that
    /// does not change with its ephemeral port, so a disk cache stays warm between runs.
    let cacheKey: CacheKey
    /// The URL as a key, hashed once here rather than at each of its requests (`ParsedURLs`).
    let urlKey: CacheKey
    let expectedBytes: Int?
    let sourcePixels: Int?

    init(url: String, cacheKey: String? = nil, expectedBytes: Int?, sourcePixels: Int?) {
        self.url = url
        urlKey = CacheKey(url)
        self.cacheKey = cacheKey.map { CacheKey($0) } ?? urlKey
        self.expectedBytes = expectedBytes
        self.sourcePixels = sourcePixels
    }
}

/// The fixed inputs of every run in a benchmark: built once, shared by every cell.
struct Workload: Sendable {
    let feed: Feed
    let images: [ImageReference]
    let viewport: Viewport
    let trace: ScrollTrace

    /// The workload as simulated user `client` sees it: the same feed and images, a trace of its
    /// own (seeded by the seed plus its index; user 0 scrolls the single-user trace).
    func forClient(_ client: Int, settings: RunSettings) -> Workload {
        guard client > 0 else { return self }
        let trace = ScrollTrace.generate(profile: settings.scroll, viewport: viewport, fps: settings.fps,
                                         seed: settings.seed &+ UInt64(client))
        return Workload(feed: feed, images: images, viewport: viewport, trace: trace)
    }

    /// Session `number` (0: the first) of user `client` that loops (`--duration`, `--stages`): a
    /// trace of its own for each, distinct from every other user's.
    func session(_ number: Int, ofClient client: Int, settings: RunSettings) -> Workload {
        guard number > 0 else { return forClient(client, settings: settings) }
        let seed = settings.seed &+ UInt64(client) &+ UInt64(number) &* 1_000_003
        let trace = ScrollTrace.generate(profile: settings.scroll, viewport: viewport, fps: settings.fps, seed: seed)
        return Workload(feed: feed, images: images, viewport: viewport, trace: trace)
    }

    /// The same workload on the first `frames` frames of the trace (nil: all of it).
    func prefix(frames: Int?) -> Workload {
        guard let frames, frames < trace.frames.count else { return self }
        return Workload(feed: feed, images: images, viewport: viewport,
                        trace: ScrollTrace(fps: trace.fps, frames: Array(trace.frames.prefix(max(1, frames)))))
    }

    init(feed: Feed, images: [ImageReference], viewport: Viewport, trace: ScrollTrace) {
        precondition(images.count >= feed.imageCount, "every feed image needs a reference")
        self.feed = feed
        self.images = images
        self.viewport = viewport
        self.trace = trace
    }
}
