/// Finished loads waiting for the main loop, as `DispatchQueue.main.async` would hold them: workers
/// post, the main loop takes everything once per frame.
final class DeliveryInbox: Sendable {
    private let pending = Locked<[LoadCompletion]>([])
    private let previews = Locked<[LoadPreview]>([])

    init() {}

    func post(_ completion: LoadCompletion) {
        pending.withLockedValue { $0.append(completion) }
    }

    /// A progressive preview of a load still under way (`--progressive`).
    func post(_ preview: LoadPreview) {
        previews.withLockedValue { $0.append(preview) }
    }

    func takePreviews() -> [LoadPreview] {
        previews.withLockedValue { previews in
            defer { previews.removeAll(keepingCapacity: true) }
            return previews
        }
    }

    func takeAll() -> [LoadCompletion] {
        pending.withLockedValue { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}
