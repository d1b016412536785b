import Synchronization

/// A request to end a benchmark early (Ctrl-C, SIGTERM): the run in progress stops at its next
/// frame, cancels its loads and keeps what it measured, marked partial; no further run starts.
public final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    private let why = Locked<String?>(nil)
    private let handlers = Locked<[@Sendable () -> Void]>([])

    public init() {}

    public func request(reason: String) {
        why.withLockedValue { $0 = $0 ?? reason }
        requested.store(true, ordering: .releasing)
        let waiting = handlers.withLockedValue { handlers in
            defer { handlers.removeAll() }
            return handlers
        }
        for handler in waiting { handler() }
    }

    /// Runs `handler` when a stop is requested (at once if it was): how work that waits on
    /// something else (a fetch while preparing) learns to stop.
    func whenRequested(_ handler: @escaping @Sendable () -> Void) {
        let now = handlers.withLockedValue { handlers in
            if isRequested { return true }
            handlers.append(handler)
            return false
        }
        if now { handler() }
    }

    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Why the stop was requested ("SIGINT"), once it was.
    public var reason: String? { why.withLockedValue { $0 } }
}
