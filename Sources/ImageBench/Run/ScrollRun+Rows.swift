/// `cellForRow` and its neighbours: what the main loop does for rows that appear, leave, wait for
/// the scroll to stop, or lie just ahead.
extension ScrollRun {
    func rowAppeared(_ row: Int, frame: Int, moving: Bool) {
        let imageID = workload.feed.imageForRow[row]
        let image = workload.images[imageID]
        func appeared(_ source: RequestSource) -> Int {
            book.appeared(row: row, imageID: imageID, url: image.url, frame: frame, requestedAt: clock.now(), client: client,
                          source: source)
        }
        if let cached = memoryCache.image(for: image.cacheKey, counted: true) {
            display(appeared(.memory), frame: frame, size: cached.size)
        } else if let loadID = registry.loadID(forKey: image.cacheKey) {
            let id = appeared(.network)
            // Joining a load that is being cancelled means a fresh fetch once it has stopped.
            book.joined(id, cancelling: registry[loadID]!.cancelled)
            registry.join(id, loadID)
        } else if settings.diskRead == .main, let diskCache, diskCache.contains(image.cacheKey.text),
                  let completion = pipeline.loadFromDiskNaively(
                      LoadRequest(url: image.url, cacheKey: image.cacheKey, urlKey: image.urlKey, expectedBytes: image.expectedBytes),
                      id: registry.nextID, submittedAt: clock.now()) {
            // The classic mistake: read and decode the cached file right here in cellForRow.
            let id = appeared(.disk)
            registry.start(image, imageID: imageID, origin: id, submittedAt: book[id].requestedAt, submit: false)
            inbox.post(completion)
            inlineDelivery = true
        } else {
            let id = appeared(.network)
            if settings.cancelPolicy == .suspendWhileDragging && moving {
                book.deferUntilRest(id)  // the tutorial's cellForRow: no load while the table moves
            } else {
                startLoad(imageID: imageID, origin: id)
            }
        }
    }

    /// The scroll stopped: load what is on screen now (the tutorial's loadImagesForOnscreenCells).
    func startDeferred(frame: Int) {
        for id in book.takeDeferred() {
            let key = workload.images[book[id].imageID].cacheKey
            if let cached = memoryCache.image(for: key) {
                // Another row loaded it meanwhile; it still waited for the scroll to stop.
                book.servedFromMemory(id)
                display(id, frame: frame, size: cached.size, readyAt: clock.now())
            } else if let loadID = registry.loadID(forKey: key) {
                book.joined(id, cancelling: registry[loadID]!.cancelled)
                registry.join(id, loadID)
            } else {
                startLoad(imageID: book[id].imageID, origin: id)
            }
        }
    }

    /// Queue wait counts from when the row asked, so time spent deferred or waiting for a
    /// cancelled transfer to stop is in it too.
    func startLoad(imageID: Int, origin: Int?, prefetchRow: Int? = nil) {
        registry.start(workload.images[imageID], imageID: imageID, origin: origin,
                       submittedAt: origin.map { book[$0].requestedAt } ?? clock.now(), prefetchRow: prefetchRow)
        if prefetchRow != nil { tally.prefetchLoads += 1 }
    }

    func rowDisappeared(_ row: Int, frame: Int) {
        guard let id = book.left(row: row, frame: frame) else { return }
        guard book.isWaiting(id) else { return registry.release([id]) }
        guard let (loadID, load) = registry.leave(id) else { return }
        if settings.cancelPolicy != .none && load.waiting.isEmpty { cancel(loadID) }
    }

    /// Starts low-priority loads for the `prefetch` rows ahead and cancels prefetches whose rows
    /// fell out of that range without becoming visible.
    func prefetch(around visible: Range<Int>, downward: Bool) {
        let count = settings.prefetch, rows = workload.feed.rowCount
        let ahead = downward ? visible.upperBound..<min(rows, visible.upperBound + count)
                             : max(0, visible.lowerBound - count)..<visible.lowerBound
        if settings.cancelPolicy != .none {
            for (row, loadID) in registry.prefetching where !ahead.contains(row) {
                registry.stopPrefetching(row)
                if let load = registry[loadID], load.waiting.isEmpty { cancel(loadID) }
            }
        }
        for row in ahead where registry.prefetching[row] == nil {
            let imageID = workload.feed.imageForRow[row]
            let key = workload.images[imageID].cacheKey
            guard registry.loadID(forKey: key) == nil, memoryCache.image(for: key) == nil else { continue }
            startLoad(imageID: imageID, origin: nil, prefetchRow: row)
        }
    }

    func cancel(_ loadID: Int) {
        // `--inject cancel=running-only`: the policy broken on purpose, for a gate to catch.
        if settings.injection.keepsQueuedLoads && registry[loadID]?.job.token.state == .queued { return }
        guard let (load, result) = registry.cancel(loadID) else { return }
        tally.cancelled(imageID: load.imageID, result, prefetch: load.origin == nil)
        if let origin = load.origin, result != .tooLate { book.cancelled(origin, whileQueued: result == .whileQueued) }
    }
}
