/// What to do with a load whose row left the screen.
public enum CancelPolicy: String, Sendable, Codable, CaseIterable {
    /// Let it finish (its image lands in the memory cache, possibly wasted).
    case none
    /// Cancel it when its row leaves the viewport and no other visible row wants the image.
    case offscreen
    /// The classic tutorial: start no load while the content moves (finger down or decelerating);
    /// when it stops, load the rows on screen. Loads of rows that left are cancelled as with
    /// `offscreen`.
    case suspendWhileDragging = "suspend-while-dragging"
}

/// Where a disk cache hit is read and decoded.
public enum DiskReadMode: String, Sendable, Codable, CaseIterable {
    /// On a worker, as part of the load (the default, as image libraries do).
    case background
    /// Synchronously inside `cellForRow` on the main loop: the classic mistake, kept measurable.
    case main
}

/// Everything one run depends on besides the strategy and its limit: the matrix varies those two
/// and keeps this fixed, so every cell sees the same workload.
public struct RunSettings: Sendable, Equatable {
    public var rows = 5_000
    public var fps = 60
    public var seed: UInt64 = 1
    public var scroll = ScrollProfile.fling
    public var network = NetworkProfile.presets[1]
    public var filter = ImageFilter.sepia
    public var cancelPolicy = CancelPolicy.offscreen
    public var coalesce = true
    public var memoryCacheBytes = MemoryCache.defaultCostLimit
    /// The user's disk cache directory; nil runs without a disk cache.
    public var diskCacheDirectory: String?
    public var diskCacheBytes = DiskCache.defaultSizeLimit
    public var diskRead = DiskReadMode.background
    /// Rows ahead of the viewport (in the scroll direction) to load at low priority.
    public var prefetch = 0
    public var transport = TransportKind.blocking
    public var fetchLimits = FetchLimits()
    public var decodeLimits = DecodeLimits()
    /// A testing aid: slow a stage down on purpose (`--inject`).
    public var injection = FaultInjection.none
    /// Simulated users in this process, each with its own trace, viewport and memory cache
    /// (`--clients`).
    public var clients = 1
    /// The clients this process runs (`--shard I/N` runs a slice); nil runs them all.
    public var clientSlice: Range<Int>?
    /// `--no-decode`: fetch and discard, for load generation.
    public var decodes = true
    /// Where the images come from (`--source`).
    public var source = ImageSource.embedded
    /// Faults the embedded server injects (`--faults`).
    public var faults = ServerFaults.none
    /// Retries of failed fetches (`--retries`).
    public var retry = RetryPolicy()
    /// How long the run goes on after the trace ends, for the last screen's images to arrive.
    public var settleSeconds = 3.0
    /// Distinct images in the feed; nil picks `Feed.defaultImageCount(rows:)`.
    public var imageCount: Int?

    public init() {}

    public var resolvedImageCount: Int { imageCount ?? Feed.defaultImageCount(rows: rows) }

    /// The clients this process runs.
    public var clientIndices: Range<Int> { clientSlice ?? 0..<clients }
}

/// One cell of the matrix.
public struct RunCell: Sendable, Equatable, Hashable {
    public var strategy: StrategyKind
    public var concurrency: Int
    public var repetition: Int

    public init(strategy: StrategyKind, concurrency: Int, repetition: Int) {
        self.strategy = strategy
        self.concurrency = concurrency
        self.repetition = repetition
    }
}

/// The image a feed row shows, as the client sees it: where to get it and, when the workload
/// knows it in advance, its size.
public struct ImageReference: Sendable, Equatable {
    public let url: String
    /// What caches and request merging key on: the URL, or for the embedded server a name that
    /// does not change with its ephemeral port, so a disk cache stays warm between runs.
    public let cacheKey: String
    public let expectedBytes: Int?
    public let sourcePixels: Int?

    public init(url: String, cacheKey: String? = nil, expectedBytes: Int?, sourcePixels: Int?) {
        self.url = url
        self.cacheKey = cacheKey ?? url
        self.expectedBytes = expectedBytes
        self.sourcePixels = sourcePixels
    }
}

/// The fixed inputs of every run in a benchmark: built once, shared by every cell.
public struct Workload: Sendable {
    public let feed: Feed
    public let images: [ImageReference]
    public let viewport: Viewport
    public let trace: ScrollTrace

    /// The workload as simulated user `client` sees it: the same feed and images, a trace of its
    /// own (seeded by the seed plus its index; user 0 scrolls the single-user trace).
    public func forClient(_ client: Int, settings: RunSettings) -> Workload {
        guard client > 0 else { return self }
        let trace = ScrollTrace.generate(profile: settings.scroll, viewport: viewport, fps: settings.fps,
                                         seed: settings.seed &+ UInt64(client))
        return Workload(feed: feed, images: images, viewport: viewport, trace: trace)
    }

    public init(feed: Feed, images: [ImageReference], viewport: Viewport, trace: ScrollTrace) {
        precondition(images.count >= feed.imageCount, "every feed image needs a reference")
        self.feed = feed
        self.images = images
        self.viewport = viewport
        self.trace = trace
    }
}
