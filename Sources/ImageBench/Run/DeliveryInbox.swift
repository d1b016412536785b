/// Finished loads waiting for the main loop, as `DispatchQueue.main.async` would hold them: workers
/// post, the main loop takes everything once per frame.
public final class DeliveryInbox: Sendable {
    private let pending = Locked<[LoadCompletion]>([])

    public init() {}

    public func post(_ completion: LoadCompletion) {
        pending.withLockedValue { $0.append(completion) }
    }

    public func takeAll() -> [LoadCompletion] {
        pending.withLockedValue { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}
