/// One load of one image, as Nuke's `ImageTask`: what is loaded, for whom it is in line, when it
/// was asked for, its state (the token) and who watches it arrive. The registry creates it; a
/// strategy queues it (inside a `LoadJob`); the pipeline runs it; the transport sees its fetch.
final class LoadTask: Sendable {
    let id: Int
    let request: LoadRequest
    /// Loads for visible rows run before prefetches where a strategy can order its queue.
    let priority: LoadPriority
    /// When the main loop asked for it (monotonic ns): its queue wait runs from here.
    let submittedAt: UInt64
    /// Queued, running, finished or cancelled: one atomic that settles the main loop's races
    /// with the worker.
    let token: LoadToken
    let observers: LoadObservers

    init(id: Int, request: LoadRequest, priority: LoadPriority = .visible, submittedAt: UInt64 = 0,
         token: LoadToken = LoadToken(), observers: LoadObservers = LoadObservers()) {
        self.id = id
        self.request = request
        self.priority = priority
        self.submittedAt = submittedAt
        self.token = token
        self.observers = observers
    }

    /// The fetch of attempt `attempt` (from 1), as the transport takes it.
    func fetch(attempt: Int) -> FetchRequest {
        FetchRequest(url: request.url, urlKey: request.urlKey, expectedBytes: request.expectedBytes, attempt: attempt, token: token,
                     bodyObserver: observers.body, partials: observers.partials)
    }
}

/// Who watches a load's body as it arrives.
struct LoadObservers: Sendable {
    /// `--progressive`: previews of a progressive JPEG while it arrives.
    var body: (any BodyObserver)?
    /// `--resume`: where the transfer resumes from, and keeps what it got if cancelled.
    var partials: PartialDownloads?

    init(body: (any BodyObserver)? = nil, partials: PartialDownloads? = nil) {
        self.body = body
        self.partials = partials
    }
}

enum LoadPriority: Int, Sendable, Comparable {
    case prefetch = 0
    case visible = 1

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
