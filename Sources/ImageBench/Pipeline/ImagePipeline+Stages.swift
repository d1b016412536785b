import Foundation

/// Everything after the bytes arrived: decode (and downsample), filter, memory cache, each stage
/// run here or, with its own limit (`PipelineStages`), handed to its queue.
extension ImagePipeline {
    /// A load past its fetch: what the later stages need to finish it.
    struct Arrived: Sendable {
        let source: LoadSource
        let task: LoadTask
        let clock: any RunClock
        var stages: StageTimes
        let attempts: Int
        let earlierBytes: Int
        /// Each failed attempt, and whether the last was cut by a cancel (`LoadCompletion`).
        var httpFailures: [HTTPFailure] = []
        var httpCancelled = false
        /// Body bytes this fetch received (a failed one's are passed to `finish`).
        var bytes = 0
        var bodySize: Int?
        var decodeWarnings = 0
        var resumedBytes = 0, resumeRefused = false
        /// The connection the last attempt went over, where the transport said.
        var connection: ConnectionFacts?
        /// When the last stage ended: a stage queue's wait runs from here.
        var stageEnded: UInt64
        /// When the decode must have ended (`--timeout` after the fetch began), if ever.
        var deadline: UInt64?

        func finish(_ outcome: LoadOutcome, bytes: Int? = nil, pixels: Int = 0, store: [UInt8]? = nil) -> Step {
            task.token.finish()
            let completion = LoadCompletion(loadID: task.id, source: source, outcome: outcome, stages: stages,
                                            bytesReceived: source == .network ? earlierBytes + (bytes ?? self.bytes) : 0,
                                            sourcePixels: pixels, finishedAt: clock.now(), attempts: attempts,
                                            httpFailures: httpFailures, httpCancelled: httpCancelled,
                                            decodeWarnings: decodeWarnings, bodySize: bodySize, resumedBytes: resumedBytes,
                                            resumeRefused: resumeRefused, connection: connection)
            return .finished(Output(completion: completion, bytesToStore: store))
        }

        /// A stage starting now: the wait for its queue counts as queue wait, so stages still add up.
        mutating func start() -> UInt64 {
            let now = clock.now()
            stages.queueWait += now - min(now, stageEnded)
            return now
        }
    }

    /// The fetch's outcome, then the decode here or on the decode queue. `fullSize`: every stage
    /// here (the naive disk read on the main loop).
    func process(_ fetched: Result<FetchResult, FetchError>, source: LoadSource, task: LoadTask,
                 stages initial: StageTimes, fetchStarted: UInt64,
                 attempts: Int = 1, earlierBytes: Int = 0, httpFailures: [HTTPFailure] = [], fullSize: Bool = false) -> Step {
        // Our own clock for the whole fetch, split at curl's first-byte time, so stages add up.
        let fetchEnd = clock.now()
        let fetchTime = fetchEnd - min(fetchEnd, fetchStarted)
        var load = Arrived(source: source, task: task, clock: clock, stages: initial, attempts: attempts,
                           earlierBytes: earlierBytes, httpFailures: source == .network ? httpFailures : [], stageEnded: fetchEnd)
        let result: FetchResult
        switch fetched {
        case .failure(let error):
            // The last attempt's true time to first byte where a response began; else all of it.
            load.stages.timeToFirstByte = error.partial.timeToFirstByte.map { min($0, fetchTime) } ?? fetchTime
            load.stages.transfer = fetchTime - load.stages.timeToFirstByte
            load.connection = error.partial.connection
            if case .cancelled(let received, let announced) = error {
                (load.bodySize, load.httpCancelled) = (announced, source == .network)
                return load.finish(.cancelled, bytes: received)
            }
            return load.finish(.failed(.fetch(error)), bytes: error.partial.bytes)
        case .success(let success):
            result = success
        }
        (load.bytes, load.bodySize) = (result.size, result.size + result.resumedBytes)
        (load.resumedBytes, load.resumeRefused) = (result.resumedBytes, result.resumeRefused)
        load.connection = result.connection
        load.stages.timeToFirstByte = min(result.timeToFirstByte, fetchTime)
        load.stages.transfer = fetchTime - load.stages.timeToFirstByte
        // From the start of the attempt that brought the bytes (a retry after a timeout is not
        // out of time already); a disk hit's from its read.
        let attemptTime = min(fetchTime, result.timeToFirstByte + result.transfer)
        load.deadline = timeoutNanoseconds.map { fetchEnd - attemptTime + $0 }
        guard !task.token.isCancelled else { return load.finish(.cancelled) }
        if !decodes {
            var standIn = DecodedImage(size: PixelSize(width: 1, height: 1), pixels: Self.standInPixels)
            standIn.standInCost = targetSize.pixelCount * 4
            memoryCache.insert(standIn, for: task.request.cacheKey)
            return load.finish(.image(standIn))
        }
        if let work = modelled?[task.request.url] { return modelledDecode(load, work) }
        guard stages.decodeQueue != nil, !fullSize else { return decode(load, result.bytes, fullSize: fullSize) }
        let arrived = load
        return .next(PendingStage(kind: .decode, task: task) { [self] in decode(arrived, result.bytes, fullSize: false) })
    }

    /// A virtual run's decode and filter: the image's calibrated work on the modelled cores from
    /// the moment its bytes are in, the load keeping its slot meanwhile (`PipelineLoad`), as a
    /// decode where the fetch ended does. Their time is split between the two stages as the work
    /// is; the cell is --no-decode's stand-in, cached at its real cell's cost.
    private func modelledDecode(_ arrived: Arrived, _ work: ModelledDecodes.Work) -> Step {
        .next(PendingStage(kind: .decode, task: arrived.task, modelledWork: work.decode &+ work.filter) { [self] in
            var load = arrived
            let now = clock.now(), elapsed = now - min(now, arrived.stageEnded)
            // Stopped by a cancel: in its decode, as a real one stops at its next row.
            guard !load.task.token.isCancelled else {
                load.stages.decode = elapsed
                return load.finish(.cancelled)
            }
            let (decodeShare, whole) = (work.decode.multipliedFullWidth(by: elapsed), max(1, work.decode &+ work.filter))
            load.stages.decode = whole.dividingFullWidth(decodeShare).quotient
            load.stages.filter = elapsed - load.stages.decode
            var image = DecodedImage(size: PixelSize(width: 1, height: 1), pixels: Self.standInPixels)
            (image.standInCost, image.modelled) = (work.cellBytes, true)
            memoryCache.insert(image, for: load.task.request.cacheKey)
            return load.finish(.image(image), pixels: work.sourcePixels)
        })
    }

    /// Decoding to the cell's size (the naive path: at full size), then the filter here or on
    /// the filter queue.
    private func decode(_ arrived: Arrived, _ bytes: [UInt8], fullSize: Bool) -> Step {
        var load = arrived
        let started = load.start()
        guard !load.task.token.isCancelled else { return load.finish(.cancelled) }
        stages.decoding.enter()
        var image: DecodedImage
        // The decode stops part-way if the load is cancelled or runs out of time.
        var limits = decodeLimits
        limits.stop = DecodeStop(token: load.task.token, deadline: load.deadline, clock: clock)
        do {
            defer { stages.decoding.leave() }
            let decoded = try decoder.decode(bytes, targetSize: fullSize ? nil : targetSize, limits: limits)
            load.decodeWarnings = decoded.warnings
            // The naive path filters the full-size bitmap and scales afterwards, as the tutorials'
            // beautify step does; the pipeline scales first.
            image = fullSize ? decoded : Downsampler.aspectFill(decoded, to: targetSize)
        } catch {
            load.stages.decode = clock.now() - started
            // Stopped by a cancel: the load ends cancelled, as a cancelled fetch does.
            if case .stopped(.cancelled) = error { return load.finish(.cancelled) }
            return load.finish(.failed(.decode(error)))
        }
        let decoded = clock.now()
        load.stages.decode = decoded - started
        load.stageEnded = decoded
        guard !load.task.token.isCancelled else { return load.finish(.cancelled, pixels: image.sourceSize.pixelCount) }
        // Only bytes that decoded are worth keeping on disk.
        let store = load.source == .network && diskCache != nil ? bytes : nil
        guard stages.filterQueue != nil, !fullSize else { return filter(load, image, fullSize: fullSize, store: store) }
        let done = load, decodedImage = image
        return .next(PendingStage(kind: .filter, task: load.task) { [self] in filter(done, decodedImage, fullSize: false, store: store) })
    }

    /// The filter, then the memory cache.
    private func filter(_ decoded: Arrived, _ image: DecodedImage, fullSize: Bool, store: [UInt8]?) -> Step {
        var load = decoded, image = image
        let started = load.start()
        guard !load.task.token.isCancelled else { return load.finish(.cancelled, pixels: image.sourceSize.pixelCount) }
        stages.filtering.enter()
        processor.apply(to: &image)
        stages.filtering.leave()
        if fullSize { image = Downsampler.aspectFill(image, to: targetSize) }
        memoryCache.insert(image, for: load.task.request.cacheKey)
        load.stages.filter = clock.now() - started
        return load.finish(.image(image), pixels: image.sourceSize.pixelCount, store: store)
    }
}
