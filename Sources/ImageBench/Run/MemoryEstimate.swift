import Foundation

/// What a plan will hold in memory at its peak, worked out before anything is allocated, so that
/// a plan the machine cannot hold (a thousand users each filling a 64 MB cache) is refused with
/// its numbers instead of growing until the kernel kills it. An estimate of the large parts only:
/// the generated corpus, the users' memory caches, and the request records every run keeps.
struct MemoryEstimate: Sendable {
    /// Each part's name and bytes, largest first.
    let parts: [(name: String, bytes: Int)]
    var bytes: Int { parts.reduce(0) { $0 + $1.bytes } }

    /// Encoded bytes of a generated image, on average, per format (the corpus is held twice:
    /// generated and served). Measured on 300-image corpora: the mix 30 kB, JPEG 25, WebP 15,
    /// AVIF 12, GIF 77 and PNG (lossless photos) 267.
    static func corpusImageBytes(_ format: CorpusFormat) -> Int {
        switch format {
        case .mixed, .only(.jpeg): 27_000
        case .only(.webp): 17_000
        case .only(.avif): 14_000
        case .only(.gif): 80_000
        case .only(.png): 270_000
        case .only: 27_000
        }
    }
    /// One request record with its share of the run's tables (its URL string is shared).
    static let requestBytes = MemoryLayout<RequestRecord>.stride + 64
    /// A memory-cache entry under --no-decode: a 1×1 stand-in and its key.
    static let standInBytes = 256

    init(_ plan: BenchmarkPlan) {
        let s = plan.settings
        let clients = s.clientIndices.count
        let (alive, sessions) = Self.loadShape(s, users: clients)
        // Every format's corpus is generated and served.
        let corpusBytes = s.source == .embedded ? plan.formats.reduce(0) { $0 + s.resolvedImageCount * Self.corpusImageBytes($1) } : 0
        let distinct = min(s.rows, s.resolvedImageCount)
        let decodedImage = ImagePipeline.defaultTargetSize.pixelCount * 4
        // The largest memory cache a cell of the plan runs with (`--memory-cache-mb 16,64`).
        let cacheLimit = plan.variants.map { $0.applied(to: s).memoryCacheBytes }.max() ?? s.memoryCacheBytes
        let cachePerUser = s.decodes ? min(cacheLimit, distinct * decodedImage) : distinct * Self.standInBytes
        // Every row is asked for about once per run; every run's records are kept for the reports.
        let runs = plan.measuredRuns + plan.warmups * plan.strategies.count * plan.concurrencies.count * plan.formats.count * plan.variants.count
        parts = [
            ("generated corpus", 2 * corpusBytes),
            ("memory caches (\(alive) user\(alive == 1 ? "" : "s") × \(Format.size(cachePerUser)))", alive * cachePerUser),
            ("request records (\(runs) run\(runs == 1 ? "" : "s") × \(clients) × \(s.rows) rows"
             + (sessions > 1 ? " × \(sessions) sessions)" : ")"), runs * clients * s.rows * sessions * Self.requestBytes),
        ].sorted { $0.bytes > $1.bytes }
    }

    /// Under a load model: the users scrolling at once (a user's caches go when it ends), and the
    /// sessions a looping user scrolls (each keeps a record per row), from its trace's length.
    static func loadShape(_ s: RunSettings, users: Int) -> (alive: Int, sessions: Int) {
        guard let load = s.load else { return (users, 1) }
        let trace = max(0.1, ScrollTrace.generate(profile: s.scroll, viewport: Viewport(rowCount: s.rows), fps: s.fps, seed: s.seed).duration)
        let loops = max(1, Int((load.seconds / trace).rounded(.up)))
        switch load {
        case .duration: return (users, loops)
        // A user counted for the whole time, at most: an upper bound.
        case .stages(let stages): return (min(users, stages.map(\.target).max() ?? users), loops)
        case .arrivalRate(let rate, _): return (min(users, Int((rate * (trace + s.settleSeconds)).rounded(.up)) + 1), 1)
        }
    }

    /// Memory available now: the kernel's MemAvailable, or less where this process's cgroup (a
    /// container) allows less (memory.max less memory.current); nil where neither says.
    static func available(meminfo: String? = read("/proc/meminfo"), cgroupMax: String? = read("/sys/fs/cgroup/memory.max"),
                                 cgroupCurrent: String? = read("/sys/fs/cgroup/memory.current")) -> Int? {
        let machine = meminfo?.split(separator: "\n").first { $0.hasPrefix("MemAvailable:") }
            .flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }.map { $0 * 1_024 }
        // "max" (no limit) does not parse as a number.
        let group = cgroupMax.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            .map { $0 - (cgroupCurrent.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0) }
        return [machine, group].compactMap { $0 }.min()
    }

    static func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    /// Throws, with the estimate, when it exceeds `available`.
    func check(available: Int? = MemoryEstimate.available()) throws(BenchmarkError) {
        guard let available, bytes > available else { return }
        let detail = parts.filter { $0.bytes > 0 }.map { "\($0.name) \(Format.size($0.bytes))" }.joined(separator: ", ")
        throw BenchmarkError(description: "this plan needs about \(Format.size(bytes)) of memory (\(detail)), more than the "
                             + "\(Format.size(available)) available: lower --clients, --memory-cache-mb or --rows, "
                             + "or split the users over processes (--shard)")
    }
}
