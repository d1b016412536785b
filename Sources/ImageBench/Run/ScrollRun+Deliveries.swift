/// What the main loop does with the loads workers finished: display, fail, restart, account.
extension ScrollRun {
    func deliverCompletions(frame: Int, now: UInt64) {
        inbox.takeAll(into: &delivered)
        for completion in delivered {
            tally.account(completion)
            guard let load = registry.finish(completion.loadID) else { continue }
            tally.settle(completion, imageID: load.imageID, cancelled: load.cancelled,
                         sizeKnown: workload.images[load.imageID].expectedBytes != nil)
            if let origin = load.origin { book.reported(origin, completion, at: now) }
            if load.cancelled {
                restart(load)
                continue
            }
            if let origin = load.origin, completion.source == .disk { book.servedFromDisk(origin) }
            registry.release(load.waiting)
            switch completion.outcome {
            case .image(let image):
                var stages = completion.stages
                stages.delivery = now - min(now, completion.finishedAt)
                tally.recordStages(stages, fromNetwork: completion.source == .network, finishedAt: completion.finishedAt)
                if load.waiting.isEmpty && load.origin != nil { tally.wastedCompletions += 1 }
                for id in load.waiting { display(id, frame: frame, size: image.size, readyAt: completion.finishedAt) }
            case .failed(let failure):
                for id in load.waiting { book.failed(id, failure) }
            case .cancelled:
                break
            }
        }
        deliverPreviews(frame: frame)
    }

    /// Rows that asked for an image while its cancelled transfer was stopping get a fresh load.
    private func restart(_ load: LoadRegistry.ActiveLoad) {
        guard let first = load.waiting.first else { return }
        registry.release(load.waiting)
        startLoad(imageID: load.imageID, origin: first)
        for id in load.waiting.dropFirst() {
            book.rejoined(id)
            registry.join(id, registry.load(for: first)!)
        }
    }

    /// The run is over: cancel what is still loading (not counted as policy savings), wait for
    /// the workers, and count the bytes that still arrived.
    func finishOutstandingLoads() {
        registry.cancelAllAndWait(clock: clock)
        // Loads the strategy finished may still be in a stage queue (cancelled: they report so).
        pipeline.stages.waitUntilIdle()
        pipeline.stages.shutdown()
        transport.shutdown()
        inbox.takeAll(into: &delivered)
        for completion in delivered {
            tally.account(completion)
            guard let load = registry[completion.loadID] else { continue }
            tally.settle(completion, imageID: load.imageID, cancelled: load.cancelled,
                         sizeKnown: workload.images[load.imageID].expectedBytes != nil, finalReport: true)
        }
        deliverPreviews(frame: loop.frame)
        registry.removeAll()
    }
}
