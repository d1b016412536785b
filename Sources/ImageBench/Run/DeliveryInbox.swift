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

    /// Everything posted since the last call, in `buffer` (emptied first). The caller's buffer and
    /// the inbox's trade places, so neither allocates: returning a copy and emptying the original
    /// kept its capacity by allocating a new one, every frame of every user, even with nothing in
    /// it (and a completion is large enough for glibc to sweep its small free lists each time).
    func takeAll(into buffer: inout [LoadCompletion]) {
        buffer.removeAll(keepingCapacity: true)
        pending.withLockedValue { swap(&$0, &buffer) }
    }

    func takePreviews(into buffer: inout [LoadPreview]) {
        buffer.removeAll(keepingCapacity: true)
        previews.withLockedValue { swap(&$0, &buffer) }
    }
}
