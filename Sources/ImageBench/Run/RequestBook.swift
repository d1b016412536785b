/// Every request of a run (a row asking for its image) and every change to one: the only writer
/// of `RequestRecord`s. A request is given its source once, when it appears, and changes it only
/// through the transitions here, so requests = memory + disk + network + merged + error holds by
/// construction. Owned by the main loop's thread, as the rest of a `ScrollRun`'s state.
struct RequestBook {
    private(set) var records: [RequestRecord] = []
    /// The request of each row on screen.
    private var onScreen: [Int: Int] = [:]
    /// Requests waiting for the scroll to stop (the suspend policy).
    private(set) var deferred: [Int] = []

    subscript(id: Int) -> RequestRecord { records[id] }

    /// The request of a row on screen.
    func request(onRow row: Int) -> Int? { onScreen[row] }

    func isWaiting(_ id: Int) -> Bool { records[id].outcome == .neverDisplayed }

    var displayedCount: Int { records.count { $0.outcome == .displayed } }

    /// A row appeared and asked for its image (`requestedAt`: when its cellForRow ran), to come
    /// from `source`: the memory cache, a disk read in cellForRow, or the network (a load of its
    /// own, or one it joins: see `joined`).
    mutating func appeared(row: Int, imageID: Int, url: String, frame: Int, requestedAt: UInt64, client: Int,
                           source: RequestSource) -> Int {
        let id = records.count
        var request = RequestRecord(id: id, row: row, imageID: imageID, url: url, visibleFrame: frame, requestedAt: requestedAt,
                                    source: source)
        request.client = client
        records.append(request)
        onScreen[row] = id
        return id
    }

    /// It waits for a load of the same image already under way: merged, unless that load is being
    /// cancelled, when a fresh fetch follows its end (network).
    mutating func joined(_ id: Int, cancelling: Bool) {
        if !cancelling { records[id].source = .merged }
    }

    /// Its row's load (cancelled while it ran) started afresh for another request, and it waits
    /// for that one.
    mutating func rejoined(_ id: Int) { records[id].source = .merged }

    /// No load while the table moves (the suspend policy): it waits for the scroll to stop.
    mutating func deferUntilRest(_ id: Int) { deferred.append(id) }

    /// The scroll stopped: the deferred requests whose rows are still on screen and waiting.
    mutating func takeDeferred() -> [Int] {
        defer { deferred.removeAll() }
        return deferred.filter { onScreen[records[$0].row] == $0 && isWaiting($0) }
    }

    /// A deferred request whose image another row loaded meanwhile: the memory cache's.
    mutating func servedFromMemory(_ id: Int) { records[id].source = .memory }

    /// Its row left the screen in `frame`.
    mutating func left(row: Int, frame: Int) -> Int? {
        guard let id = onScreen.removeValue(forKey: row) else { return nil }
        records[id].leftFrame = frame
        return id
    }

    /// Its load was cancelled (queued, or in flight).
    mutating func cancelled(_ id: Int, whileQueued: Bool) {
        records[id].cancel = whileQueued ? .queued : .inflight
    }

    /// The load it started reported: its stages (with the wait for the main loop, to `now`), bytes
    /// and damage.
    mutating func reported(_ id: Int, _ completion: LoadCompletion, at now: UInt64) {
        var stages = completion.stages
        stages.delivery = now - min(now, completion.finishedAt)
        records[id].stages = stages
        records[id].bytes = completion.bytesReceived
        records[id].decodeWarnings = completion.decodeWarnings
        records[id].connection = completion.connection
    }

    /// Its load found the image in the disk cache (read in the background): the disk's, not the
    /// network's.
    mutating func servedFromDisk(_ id: Int) {
        if records[id].source == .network { records[id].source = .disk }
    }

    /// The load it waited for failed: no image will come.
    mutating func failed(_ id: Int, _ failure: LoadFailure) {
        records[id].source = .error
        records[id].outcome = .error
        records[id].errorClass = failure.errorClass
        records[id].errorMessage = failure.description
    }

    /// A progressive preview of its load was shown in `frame`; false if it showed one already
    /// (or its image).
    mutating func previewed(_ id: Int, frame: Int) -> Bool {
        guard isWaiting(id), records[id].previewFrame == nil else { return false }
        records[id].previewFrame = frame
        return true
    }

    /// Its image was shown in `frame`, `latency` after its row appeared; `ready` after its
    /// cellForRow the image had reached the main loop.
    mutating func shown(_ id: Int, frame: Int, size: PixelSize, latency: UInt64, ready: UInt64) {
        records[id].ready = ready
        records[id].outcome = .displayed
        records[id].displayedSize = size
        records[id].displayFrame = frame
        records[id].latency = latency
    }

    /// The run is over: every request's placeholder time, as `placeholder` reckons it.
    mutating func closePlaceholders(_ placeholder: (RequestRecord) -> UInt64) {
        for id in records.indices { records[id].placeholder = placeholder(records[id]) }
    }
}
