import Synchronization

/// A request to end a benchmark early (Ctrl-C, SIGTERM): the run in progress stops at its next
/// frame, cancels its loads and keeps what it measured, marked partial; no further run starts.
public final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    private let why = Locked<String?>(nil)

    public init() {}

    public func request(reason: String) {
        why.withLockedValue { $0 = $0 ?? reason }
        requested.store(true, ordering: .releasing)
    }

    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Why the stop was requested ("SIGINT"), once it was.
    public var reason: String? { why.withLockedValue { $0 } }
}
