/// The loads a run has under way, and who waits for each: the "dictionary of pending operations
/// keyed by row" of the classic answer. It starts loads on the strategy, lets rows join a load of
/// the same image (request merging), and cancels. Owned by the main loop's thread, like the rest
/// of a `ScrollRun`'s state.
final class LoadRegistry {
    struct ActiveLoad {
        let job: LoadJob
        let key: CacheKey
        let imageID: Int
        /// The request that started it; nil for a prefetch.
        let origin: Int?
        /// The row a prefetch was started for.
        let prefetchRow: Int?
        var waiting: [Int]
        /// Cancelled while its transfer ran: it stays registered until its worker reports, so a
        /// row asking for the same image meanwhile waits for it to end and then starts afresh,
        /// rather than putting the same URL on the wire twice.
        var cancelled = false
    }

    /// Makes the job's work: the pipeline's load of one image, delivered to the run's inbox.
    typealias WorkFactory = (LoadTask) -> any LoadWork
    /// Who watches a load's body (`--progressive`, `--resume`), by its id.
    typealias ObserverFactory = (_ loadID: Int) -> LoadObservers

    let scheduler: any LoadScheduling
    private let makeWork: WorkFactory
    private let observe: ObserverFactory
    private let coalesce: Bool
    private var loads: [Int: ActiveLoad] = [:]
    private var loadForKey: [CacheKey: Int] = [:]
    private var loadForRequest: [Int: Int] = [:]
    /// Row → its prefetch load.
    private(set) var prefetching: [Int: Int] = [:]
    private var nextLoadID = 0

    init(scheduler: any LoadScheduling, coalesce: Bool, observe: @escaping ObserverFactory = { _ in LoadObservers() },
         makeWork: @escaping WorkFactory) {
        self.scheduler = scheduler
        self.coalesce = coalesce
        self.observe = observe
        self.makeWork = makeWork
    }

    var isEmpty: Bool { loads.isEmpty }
    /// The id the next load will get.
    var nextID: Int { nextLoadID }

    subscript(loadID: Int) -> ActiveLoad? { loads[loadID] }

    /// The load under way for an image, when requests are merged.
    func loadID(forKey key: CacheKey) -> Int? { coalesce ? loadForKey[key] : nil }

    /// Creates a load's bookkeeping and job; `submit` false leaves it to the caller (a disk read
    /// done inline on the main loop). Returns its id.
    @discardableResult
    func start(_ image: ImageReference, imageID: Int, origin: Int?, submittedAt: UInt64, prefetchRow: Int? = nil,
               submit: Bool = true) -> Int {
        let loadID = nextLoadID
        nextLoadID += 1
        let task = LoadTask(id: loadID, request: LoadRequest(url: image.url, cacheKey: image.cacheKey, urlKey: image.urlKey, expectedBytes: image.expectedBytes),
                            priority: prefetchRow == nil ? .visible : .prefetch, submittedAt: submittedAt, observers: observe(loadID))
        let job = LoadJob(task, work: makeWork(task))
        loads[loadID] = ActiveLoad(job: job, key: image.cacheKey, imageID: imageID, origin: origin,
                                   prefetchRow: prefetchRow, waiting: origin.map { [$0] } ?? [])
        if let origin { loadForRequest[origin] = loadID }
        if let prefetchRow { prefetching[prefetchRow] = loadID }
        if coalesce { loadForKey[image.cacheKey] = loadID }
        if submit { scheduler.submit(job) }
        return loadID
    }

    /// `request` waits for `loadID` too.
    func join(_ request: Int, _ loadID: Int) {
        loads[loadID]!.waiting.append(request)
        loadForRequest[request] = loadID
    }

    /// The load `request` waited for, which it no longer does (its row left the screen).
    func leave(_ request: Int) -> (loadID: Int, load: ActiveLoad)? {
        guard let loadID = loadForRequest.removeValue(forKey: request) else { return nil }
        // In place: a copy taken out first would share the array and copy it to remove one row.
        loads[loadID]?.waiting.removeAll { $0 == request }
        return loads[loadID].map { (loadID, $0) }
    }

    /// Forgets which load the requests wait for (their load delivered or is being restarted).
    func release(_ requests: [Int]) {
        for request in requests { loadForRequest[request] = nil }
    }

    func load(for request: Int) -> Int? { loadForRequest[request] }

    /// Cancels a load; one cancelled while its transfer runs stays registered until its worker
    /// reports. Nil when the load is already gone.
    func cancel(_ loadID: Int) -> (load: ActiveLoad, result: LoadToken.CancelResult)? {
        guard let load = loads[loadID] else { return nil }
        let result = load.job.token.cancel()
        scheduler.cancel(load.job)
        if let row = load.prefetchRow, prefetching[row] == loadID { prefetching[row] = nil }
        switch result {
        case .tooLate: break  // its completion is on the way
        case .inFlight: loads[loadID]!.cancelled = true
        case .whileQueued: _ = finish(loadID)
        }
        return (load, result)
    }

    /// Drops a prefetch row's claim without cancelling its load.
    func stopPrefetching(_ row: Int) { prefetching[row] = nil }

    /// A load that reported: removed, and returned for its delivery.
    func finish(_ loadID: Int) -> ActiveLoad? {
        // Moved out of the table, not copied and then removed (a load a request, on the main loop).
        guard let load = loads.removeValue(forKey: loadID) else { return nil }
        if let row = load.prefetchRow, prefetching[row] == loadID { prefetching[row] = nil }
        if loadForKey[load.key] == loadID { loadForKey[load.key] = nil }
        return load
    }

    /// The run is over: cancel whatever is still loading and wait for the strategy's workers.
    /// The loads stay registered so their last completions can still be accounted.
    /// `clock` settles between the two: a virtual run's cancelled transfers end when its loop
    /// waits, and this wait is on the loop's own thread.
    func cancelAllAndWait(clock: any RunClock) {
        cancelAll()
        clock.settle()
        scheduler.waitUntilIdle()
        scheduler.shutdown()
    }

    /// Cancels whatever is still loading, without waiting (a user of a crowd whose run is over
    /// while the others go on).
    /// In the order the loads began, so that a run's end does the same every time (a
    /// dictionary's order changes per process).
    func cancelAll() {
        for load in loads.sorted(by: { $0.key < $1.key }).map(\.value) {
            _ = load.job.token.cancel()
            scheduler.cancel(load.job)
        }
    }

    func removeAll() { loads.removeAll() }
}
