/// What to do with a load whose row left the screen.
enum CancelPolicy: String, Sendable, Codable, CaseIterable {
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
enum DiskReadMode: String, Sendable, Codable, CaseIterable {
    /// On a worker, as part of the load (the default, as image libraries do).
    case background
    /// Synchronously inside `cellForRow` on the main loop: the classic mistake, kept measurable.
    case main
}

/// Everything one run depends on besides the strategy and its limit: the matrix varies those two
/// and keeps this fixed, so every cell sees the same workload.
public struct RunSettings: Sendable, Equatable, Codable {
    var rows = 5_000
    var fps = 60
    var seed: UInt64 = 1
    var scroll = ScrollProfile.fling
    var network = NetworkProfile.presets[1]
    var filter = ImageFilter.sepia
    var cancelPolicy = CancelPolicy.offscreen
    var coalesce = true
    var memoryCacheBytes = MemoryCache.defaultCostLimit
    /// The user's disk cache directory; nil runs without a disk cache.
    var diskCacheDirectory: String?
    var diskCacheBytes = DiskCache.defaultSizeLimit
    var diskRead = DiskReadMode.background
    /// Rows ahead of the viewport (in the scroll direction) to load at low priority.
    var prefetch = 0
    var transport = TransportKind.blocking
    /// Decodes' own queue and its limit (`--decode-concurrency`); nil: decode inside the load's
    /// slot, one queue for the whole load, as the seeds do.
    var decodeConcurrency: Int?
    /// The filter's own queue and its limit (`--filter-concurrency`); nil: where decode ran.
    var filterConcurrency: Int?
    /// Show progressive JPEGs at their first complete scan while they download, then refined
    /// (`--progressive`); nil or false: only whole images, as the seeds do.
    var progressive: Bool?
    /// Keep what cancelled transfers received and ask only for the rest when the image is wanted
    /// again (`--resume`: Range and If-Range); nil or false: start over, as the seeds do.
    var resume: Bool?
    var fetchLimits = FetchLimits()
    var decodeLimits = DecodeLimits()
    /// A testing aid: slow a stage down on purpose (`--inject`).
    var injection = FaultInjection.none
    /// Simulated users in this process, each with its own trace, viewport and memory cache
    /// (`--clients`).
    public var clients = 1
    /// Who scrolls when (`--duration`, `--stages`, `--arrival-rate`); nil: each of `clients`
    /// users scrolls its trace once. With `stages` or `arrivalRate`, `clients` is every user the
    /// model brings (`LoadModel.users`).
    var load: LoadModel?
    /// The slice of the clients this process runs (`--shard I/N`); nil runs them all.
    var shard: ClientShard?
    /// `--no-decode`: fetch and discard, for load generation (the transports do not even keep the
    /// bodies: nothing would read them).
    var decodes = true
    /// Where the images come from (`--source`).
    var source = ImageSource.embedded
    /// `--tls`: the embedded server answers over HTTPS, with a CA made for the run that the
    /// client alone trusts; nil or false: clear text, as before 0.8.
    var tls: Bool?
    /// `--time`: nil or real, the real clock; virtual, a virtual clock and a modelled network.
    var time: RunTime?
    /// `--host-delay-ms`, virtual runs only: the host's own time added to every modelled
    /// request (`imgbench calibrate` measures it); nil: none, as before it existed.
    var hostDelayMs: Double?
    /// The calibration file `--host-delay-ms` named (nil: a number, or none), said back in its
    /// place so that a re-run reads the same file; and the decode costs it holds, which a virtual
    /// run that decodes models its decodes with (recorded with the plan, as the delay is).
    var calibrationFile: String?
    var decodeCosts: DecodeCosts?
    /// Faults the embedded server injects (`--faults`).
    var faults = ServerFaults.none
    /// Retries of failed fetches (`--retries`).
    var retry = RetryPolicy()
    /// How long the run goes on after the trace ends, for the last screen's images to arrive.
    var settleSeconds = 3.0
    /// Distinct images in the feed; nil picks `Feed.defaultImageCount(rows:)`.
    var imageCount: Int?
    /// How rows pick images (`--feed`); nil: the source's own (`feedOrder`).
    var feed: FeedOrder?

    init() {}

    var resolvedImageCount: Int { imageCount ?? Feed.defaultImageCount(rows: rows) }

    /// A manifest's entries the feed can reach: in order, the first `rows` (row i shows entry i);
    /// with zipf, the first `resolvedImageCount`. The rest is dropped as soon as the manifest is
    /// read, so a million-entry listing costs neither memory through the run nor a summary.json
    /// the size of the listing.
    mutating func keepManifestEntriesInUse() {
        guard case .manifest(let path, let entries) = source else { return }
        if entries.count > manifestReach { source = .manifest(path: path, entries: Array(entries.prefix(manifestReach))) }
    }

    /// How many of a manifest's entries the feed can reach.
    var manifestReach: Int { (feed ?? .sequential) == .sequential ? rows : resolvedImageCount }

    /// The feed order in force: a manifest is the user's feed, in its order; generated images and
    /// `{id}` templates recur with skewed popularity.
    var feedOrder: FeedOrder {
        if let feed { return feed }
        if case .manifest = source { return .sequential }
        return .zipf
    }

    /// The clients this process runs.
    var clientIndices: Range<Int> { shard?.clients(of: clients) ?? 0..<clients }
}
