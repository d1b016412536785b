import Foundation

/// The work of one load, identical for every strategy: disk cache, else fetch → decode (to the
/// cell's size) → filter → memory cache, then the downloaded bytes to the disk cache. The token is
/// checked between stages, so a cancelled load stops at the next boundary.
public final class ImagePipeline: Sendable {
    let decoder: any ImageDecoding
    /// The filter step (`--filter`), after the downsample to the cell.
    let processor: any ImageProcessing
    let memoryCache: any ImageCaching
    let diskCache: DiskCache?
    /// The cell's image size in pixels: 80 × 80 pt at 3x by default.
    let targetSize: PixelSize
    let decodeLimits: DecodeLimits
    let retry: RetryPolicy
    /// `--no-decode`: fetch and discard the bytes; the cache keeps a stand-in charged at the cell
    /// image's size, so hits and evictions (and so the requests a server sees) match a real client.
    let decodes: Bool
    /// Where decode and filter run (`--decode-concurrency`, `--filter-concurrency`) and the
    /// stages' gauges.
    let stages: PipelineStages
    /// `--timeout` in nanoseconds, which bounds the decode too: a decode still running that long
    /// after the start of the fetch that brought its bytes stops and fails as a timeout. Nil: a
    /// decode has no deadline (it still stops when its load is cancelled).
    let timeoutNanoseconds: UInt64?
    /// Where stage times are read and backoffs waited.
    let clock: any RunClock
    /// A virtual run's decodes: each image's calibrated work on the modelled cores instead of a
    /// decoder (nil: real decodes, or none).
    let modelled: ModelledDecodes?

    public static let defaultTargetSize = PixelSize(width: 240, height: 240)
    /// One pixel every `--no-decode` stand-in shares (no buffer per cached image).
    static let standInPixels: [UInt8] = [0, 0, 0, 0]

    init(decoder: any ImageDecoding = ImageDecoder(), processor: any ImageProcessing,
                memoryCache: any ImageCaching, diskCache: DiskCache? = nil,
                targetSize: PixelSize = ImagePipeline.defaultTargetSize, decodeLimits: DecodeLimits = DecodeLimits(),
                retry: RetryPolicy = RetryPolicy(), decodes: Bool = true, stages: PipelineStages = PipelineStages(),
                timeoutMilliseconds: Int? = nil, clock: any RunClock = .monotonic, modelled: ModelledDecodes? = nil) {
        self.decoder = decoder
        self.processor = processor
        self.memoryCache = memoryCache
        self.diskCache = diskCache
        self.targetSize = targetSize
        self.decodeLimits = decodeLimits
        self.retry = retry
        self.decodes = decodes
        self.stages = stages
        timeoutNanoseconds = timeoutMilliseconds.map { UInt64(max(0, $0)) * 1_000_000 }
        self.clock = clock
        self.modelled = modelled
    }

    /// A finished load, and the bytes to store on disk once the result is on its way.
    struct Output: Sendable {
        let completion: LoadCompletion
        let bytesToStore: [UInt8]?
    }

    /// Where a load is after a stage: finished, or waiting for a stage queue (`PipelineStages`).
    enum Step: Sendable {
        case finished(Output)
        case next(PendingStage)

        var output: Output? {
            if case .finished(let output) = self { output } else { nil }
        }
    }

    /// The one path of every load: claim the task's token, try the disk cache, fetch (with its
    /// retries), then decode and filter here or hand the load to a stage queue. `completion` runs
    /// once, with where the load is: finished, waiting for a stage queue, or nil if it was
    /// cancelled before it began (nothing was done, and the main loop already knows). `context`
    /// says where the load goes on after each wait; nothing here knows which strategy runs it.
    func start(_ task: LoadTask, transport: any Transport, gauge: ConcurrencyGauge? = nil,
               on context: any LoadContext, completion: @escaping @Sendable (Step?) -> Void) {
        // Reading the disk cache is disk work: never on the main loop or a network thread.
        context.resume(heavy: diskCache != nil) { [self] in
            guard task.token.begin() else { return completion(nil) }
            gauge?.enter()
            let started = clock.now()
            if let step = fromDisk(task, started: started) {
                gauge?.leave()
                return completion(step)
            }
            stages.network.enter()
            let fetchStarted = clock.now()
            let fetch = NetworkFetch(task: task, gauge: gauge, fetchStarted: fetchStarted, attempts: FetchAttempts(policy: retry),
                                     stages: stageTimes(submittedAt: task.submittedAt, started: started, fetchStarted: fetchStarted))
            self.fetch(fetch, transport: transport, on: context, completion: completion)
        }
    }

    /// A load on its way to the network: what `end` needs, and the attempts so far.
    private struct NetworkFetch: Sendable {
        let task: LoadTask
        let gauge: ConcurrencyGauge?
        let fetchStarted: UInt64
        var attempts: FetchAttempts
        let stages: StageTimes
    }

    /// The retry loop: one attempt through the transport; after a failure another attempt can
    /// cure, the backoff, then the next attempt.
    private func fetch(_ fetch: NetworkFetch, transport: any Transport, on context: any LoadContext,
                       completion: @escaping @Sendable (Step?) -> Void) {
        // A blocking transport fetches on the calling thread, which must not be the main loop's.
        // (The others start here, with no closure made for the hop: one allocation a request.)
        guard !transport.blocksCaller else {
            return context.resume(heavy: true) { [self] in attempt(fetch, transport: transport, on: context, completion: completion) }
        }
        attempt(fetch, transport: transport, on: context, completion: completion)
    }

    private func attempt(_ fetch: NetworkFetch, transport: any Transport, on context: any LoadContext,
                         completion: @escaping @Sendable (Step?) -> Void) {
        transport.start(fetch.task.fetch(attempt: fetch.attempts.number)) { fetched in
            // Only decoding is heavy; a failure, --no-decode's stand-in and a modelled decode end
            // where they are.
            let arrived = if case .success = fetched { self.decodes && self.modelled == nil } else { false }
            context.resume(heavy: arrived) { [self] in
                var judged = fetch
                let again = judged.attempts.shouldRetry(after: fetched)
                let failed = judged
                guard again else { return completion(end(failed, with: fetched)) }
                context.pause(until: clock.now() + failed.attempts.backoff, on: clock, unless: failed.task.token) { [self] carryOn in
                    guard carryOn else { return completion(end(failed, with: fetched)) }
                    var next = failed
                    next.attempts.next()
                    self.fetch(next, transport: transport, on: context, completion: completion)
                }
            }
        }
    }

    /// The fetched bytes through the rest of the pipeline (or to the decode queue, whereupon the
    /// load's slot is free).
    private func end(_ fetch: NetworkFetch, with fetched: Result<FetchResult, FetchError>) -> Step {
        stages.network.leave()
        defer { fetch.gauge?.leave() }
        return process(fetched, source: .network, task: fetch.task, stages: fetch.stages, fetchStarted: fetch.fetchStarted,
                       attempts: fetch.attempts.number, earlierBytes: fetch.attempts.earlierBytes, httpFailures: fetch.attempts.failures)
    }

    /// The classic `cellForRow` disk read (`--disk-read main`), run where it is called: read the
    /// cached file, decode it at full size as `UIImage(contentsOfFile:)` does, filter the full
    /// bitmap, then scale it to the cell. Nil when the disk cache has no good entry.
    func loadFromDiskNaively(_ request: LoadRequest, id: Int, submittedAt: UInt64) -> LoadCompletion? {
        let task = LoadTask(id: id, request: request, submittedAt: submittedAt)
        _ = task.token.begin()
        return fromDisk(task, started: clock.now(), fullSize: true)?.output?.completion
    }

    /// A disk hit's bytes through the rest of the pipeline; the naive path (`fullSize`) runs all
    /// of it here, on the main loop.
    private func fromDisk(_ task: LoadTask, started: UInt64, fullSize: Bool = false) -> Step? {
        guard let diskCache, let bytes = diskCache.data(for: task.request.cacheKey.text) else { return nil }
        let read = clock.now()
        return process(.success(FetchResult(bytes: bytes, timeToFirstByte: 0, transfer: 0)), source: .disk, task: task,
                       stages: stageTimes(submittedAt: task.submittedAt, started: started, fetchStarted: read), fetchStarted: read,
                       fullSize: fullSize)
    }

    private func stageTimes(submittedAt: UInt64, started: UInt64, fetchStarted: UInt64) -> StageTimes {
        StageTimes(queueWait: started - min(started, submittedAt), diskRead: fetchStarted - min(fetchStarted, started))
    }
}
