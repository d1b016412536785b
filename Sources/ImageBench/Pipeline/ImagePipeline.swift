import Foundation

/// The work of one load, identical for every strategy: disk cache, else fetch → decode (to the
/// cell's size) → filter → memory cache, then the downloaded bytes to the disk cache. The token is
/// checked between stages, so a cancelled load stops at the next boundary.
public struct ImagePipeline: Sendable {
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

    public static let defaultTargetSize = PixelSize(width: 240, height: 240)
    /// One pixel every `--no-decode` stand-in shares (no buffer per cached image).
    static let standInPixels: [UInt8] = [0, 0, 0, 0]

    init(decoder: any ImageDecoding = ImageDecoder(), processor: any ImageProcessing,
                memoryCache: any ImageCaching, diskCache: DiskCache? = nil,
                targetSize: PixelSize = ImagePipeline.defaultTargetSize, decodeLimits: DecodeLimits = DecodeLimits(),
                retry: RetryPolicy = RetryPolicy(), decodes: Bool = true, stages: PipelineStages = PipelineStages(),
                timeoutMilliseconds: Int? = nil) {
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

    /// Runs one load on the calling thread, up to its first stage queue if there is one. Returns
    /// nil if the load was cancelled before it started (nothing was done, and the main loop
    /// already knows).
    func load(_ request: LoadRequest, id: Int, token: LoadToken, submittedAt: UInt64,
                     transport: any Transport, gauge: ConcurrencyGauge? = nil) -> Step? {
        let begun = begin(request, id: id, token: token, submittedAt: submittedAt, gauge: gauge)
        guard case .fetch(var fetch) = begun else { return begun.step }
        while true {
            let fetched = Result { () throws(FetchError) -> FetchResult in
                try transport.fetch(request.url, expectedBytes: request.expectedBytes, attempt: fetch.attempts.number,
                                    token: token)
            }
            guard fetch.attempts.shouldRetry(after: fetched), fetch.attempts.pause() else { return end(fetch, with: fetched) }
        }
    }

    /// The same load from a task: the fetch suspends where the transport allows; decoding and
    /// filtering run on the task's thread.
    func loadAsync(_ request: LoadRequest, id: Int, token: LoadToken, submittedAt: UInt64,
                          transport: any Transport, gauge: ConcurrencyGauge? = nil) async -> Step? {
        let begun = begin(request, id: id, token: token, submittedAt: submittedAt, gauge: gauge)
        guard case .fetch(var fetch) = begun else { return begun.step }
        while true {
            let fetched: Result<FetchResult, FetchError>
            do {
                fetched = .success(try await transport.fetchAsync(request.url, expectedBytes: request.expectedBytes,
                                                                  attempt: fetch.attempts.number, token: token))
            } catch {
                fetched = .failure(error)
            }
            guard fetch.attempts.shouldRetry(after: fetched), await fetch.attempts.pauseAsync() else {
                return end(fetch, with: fetched)
            }
        }
    }

    /// The same load with no thread waiting for it (the events strategy): the fetch starts on the
    /// multi transport's network thread and this returns; `completion` runs when the load is over,
    /// on the network thread or, where there is decoding or a disk cache to do, on a Dispatch
    /// queue (CPU and disk work never runs on the network thread, nor on the caller's, which is
    /// the main loop).
    func loadEvented(_ request: LoadRequest, id: Int, token: LoadToken, submittedAt: UInt64,
                            transport: any Transport, gauge: ConcurrencyGauge? = nil,
                            completion: @escaping @Sendable (Step?) -> Void) {
        guard let network = transport as? CurlMultiTransport else {
            // No callbacks to wait on (a test's transport; plans refuse events without multi):
            // block a Dispatch thread instead, as a GCD design does.
            DispatchQueue.global().async {
                completion(load(request, id: id, token: token, submittedAt: submittedAt, transport: transport, gauge: gauge))
            }
            return
        }
        let begin: @Sendable () -> Void = { beginEvented(request, id: id, token: token, submittedAt: submittedAt, network: network, gauge: gauge,
                                                      completion: completion) }
        // A disk cache is read before the fetch: disk work goes to a queue, never the main loop.
        if diskCache != nil { DispatchQueue.global().async(execute: begin) } else { begin() }
    }

    private func beginEvented(_ request: LoadRequest, id: Int, token: LoadToken, submittedAt: UInt64,
                              network: CurlMultiTransport, gauge: ConcurrencyGauge?,
                              completion: @escaping @Sendable (Step?) -> Void) {
        let begun = begin(request, id: id, token: token, submittedAt: submittedAt, gauge: gauge)
        guard case .fetch(let fetch) = begun else { return completion(begun.step) }
        fetchEvented(fetch, network: network, completion: completion)
    }

    private func fetchEvented(_ fetch: NetworkFetch, network: CurlMultiTransport,
                              completion: @escaping @Sendable (Step?) -> Void) {
        network.start(fetch.request.url, expectedBytes: fetch.request.expectedBytes, attempt: fetch.attempts.number,
                      token: fetch.token) { fetched in
            var fetch = fetch
            if fetch.attempts.shouldRetry(after: fetched) {
                let failed = fetch
                return fetch.attempts.pauseEvented { attempts in
                    guard let attempts else { return completion(end(failed, with: fetched)) }
                    var again = failed
                    again.attempts = attempts
                    fetchEvented(again, network: network, completion: completion)
                }
            }
            let fetchedAll = fetch
            guard decodes, case .success = fetched else { return completion(end(fetchedAll, with: fetched)) }
            DispatchQueue.global().async { completion(end(fetchedAll, with: fetched)) }
        }
    }

    /// How `begin` left a load: done without the network, or due to fetch.
    private enum Begun {
        /// Cancelled before it began (nil), or served from the disk cache.
        case done(Step?)
        case fetch(NetworkFetch)

        var step: Step? {
            if case .done(let step) = self { step } else { nil }
        }
    }

    /// A load on its way to the network: what `end` needs, and the attempts so far.
    private struct NetworkFetch {
        let request: LoadRequest
        let id: Int
        let token: LoadToken
        let gauge: ConcurrencyGauge?
        let stages: StageTimes
        let fetchStarted: UInt64
        var attempts: FetchAttempts
    }

    /// The start `load` and `loadAsync` share: claim the token, count the load as running, try the
    /// disk cache. A load that goes on to fetch stays counted until `end`.
    private func begin(_ request: LoadRequest, id: Int, token: LoadToken, submittedAt: UInt64,
                       gauge: ConcurrencyGauge?) -> Begun {
        guard token.begin() else { return .done(nil) }
        gauge?.enter()
        let started = MonotonicClock.now()
        if let step = fromDisk(request, id: id, token: token, submittedAt: submittedAt, started: started) {
            gauge?.leave()
            return .done(step)
        }
        stages.network.enter()
        let fetchStarted = MonotonicClock.now()
        return .fetch(NetworkFetch(request: request, id: id, token: token, gauge: gauge,
                                   stages: stageTimes(submittedAt: submittedAt, started: started, fetchStarted: fetchStarted),
                                   fetchStarted: fetchStarted, attempts: FetchAttempts(policy: retry, token: token)))
    }

    /// The end `load` and `loadAsync` share: the fetched bytes through the rest of the pipeline
    /// (or to the decode queue, whereupon the load's slot is free).
    private func end(_ fetch: NetworkFetch, with fetched: Result<FetchResult, FetchError>) -> Step {
        stages.network.leave()
        defer { fetch.gauge?.leave() }
        return process(fetched, source: .network, request: fetch.request, id: fetch.id, token: fetch.token,
                       stages: fetch.stages, fetchStarted: fetch.fetchStarted, attempts: fetch.attempts.number,
                       earlierBytes: fetch.attempts.earlierBytes)
    }

    /// The classic `cellForRow` disk read (`--disk-read main`), run where it is called: read the
    /// cached file, decode it at full size as `UIImage(contentsOfFile:)` does, filter the full
    /// bitmap, then scale it to the cell. Nil when the disk cache has no good entry.
    func loadFromDiskNaively(_ request: LoadRequest, id: Int, submittedAt: UInt64) -> LoadCompletion? {
        let token = LoadToken()
        _ = token.begin()
        return fromDisk(request, id: id, token: token, submittedAt: submittedAt, started: MonotonicClock.now(),
                        fullSize: true)?.output?.completion
    }

    /// A disk hit's bytes through the rest of the pipeline; the naive path (`fullSize`) runs all
    /// of it here, on the main loop.
    private func fromDisk(_ request: LoadRequest, id: Int, token: LoadToken, submittedAt: UInt64,
                          started: UInt64, fullSize: Bool = false) -> Step? {
        guard let diskCache, let bytes = diskCache.data(for: request.cacheKey.text) else { return nil }
        let read = MonotonicClock.now()
        return process(.success(FetchResult(bytes: bytes, timeToFirstByte: 0, transfer: 0)), source: .disk,
                       request: request, id: id, token: token,
                       stages: stageTimes(submittedAt: submittedAt, started: started, fetchStarted: read), fetchStarted: read,
                       fullSize: fullSize)
    }

    private func stageTimes(submittedAt: UInt64, started: UInt64, fetchStarted: UInt64) -> StageTimes {
        StageTimes(queueWait: started - min(started, submittedAt), diskRead: fetchStarted - min(fetchStarted, started))
    }
}
