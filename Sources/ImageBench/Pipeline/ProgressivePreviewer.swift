import Foundation

/// A progressive JPEG shown while it downloads (`--progressive`), as Nuke and PINRemoteImage do:
/// at its first complete scan, then refined at most every 250 ms with the latest
/// complete scan, until the whole file is in and the load's own decode takes over. Each preview is
/// decoded into the cell (`JPEGPreview`) and filtered like the final image, then posted with what
/// it cost; a file that is not a JPEG, or a baseline one (no scan complete before its end), gets
/// none.
///
/// One per load, called on the transfer's thread. With the blocking transport that is the load's
/// worker, and the preview is decoded there, in its slot (as PINRemoteImage decodes in its
/// download callback); with multi it is the network thread, which must not decode, so the bytes
/// so far are copied to a Dispatch queue, one preview at a time.
final class ProgressivePreviewer: BodyObserver, @unchecked Sendable {
    /// Nuke's progressive decoding is throttled too; a refinement costs a decode of the whole cell.
    static let defaultRefinementInterval: UInt64 = 250_000_000
    private let refinementInterval: UInt64

    private let loadID: Int
    private let pipeline: ImagePipeline
    private let offload: Bool
    private let deliver: @Sendable (LoadPreview) -> Void
    // Touched only on the transfer's thread (`bodyGrew`).
    private var shownScans = 0
    private var lastPreview: UInt64 = 0
    private var notProgressive = false
    /// The body's length at the last call: a shorter one is a new attempt's (a retry after an
    /// error's body, which was no JPEG), and starts afresh.
    private var lastLength = 0
    /// An offloaded preview is being decoded: the next waits for it rather than queueing.
    private let decoding = Locked(false)

    init(loadID: Int, pipeline: ImagePipeline, offload: Bool, refinementInterval: UInt64 = defaultRefinementInterval,
         deliver: @escaping @Sendable (LoadPreview) -> Void) {
        self.loadID = loadID
        self.refinementInterval = refinementInterval
        self.pipeline = pipeline
        self.offload = offload
        self.deliver = deliver
    }

    func bodyGrew(_ body: [UInt8]) {
        if body.count < lastLength { (notProgressive, shownScans) = (false, 0) }
        lastLength = body.count
        guard !notProgressive, body.count > 4 else { return }
        // The whole file is in (its EOI): the load's own decode comes next.
        if body[body.count - 2] == 0xFF && body[body.count - 1] == 0xD9 { return }
        let scans = body.withUnsafeBufferPointer(JPEGPreview.completeScans)
        if scans < 0 { notProgressive = true }
        let now = pipeline.clock.now()
        guard scans > shownScans, shownScans == 0 || now - lastPreview >= refinementInterval else { return }
        guard offload else {
            (shownScans, lastPreview) = (scans, now)
            return preview(body)
        }
        guard !decoding.withLockedValue({ busy in defer { busy = true }; return busy }) else { return }
        (shownScans, lastPreview) = (scans, now)
        DispatchQueue.global().async { [self] in
            preview(body)
            decoding.withLockedValue { $0 = false }
        }
    }

    private func preview(_ body: [UInt8]) {
        let started = pipeline.clock.now()
        let decoded = try? body.withUnsafeBufferPointer { bytes throws(DecodeError) in
            try JPEGPreview.decode(bytes, target: pipeline.targetSize, limits: pipeline.decodeLimits)
        }
        guard let (image, scan) = decoded ?? nil else { return }
        var filtered = image
        pipeline.processor.apply(to: &filtered)
        let finished = pipeline.clock.now()
        deliver(LoadPreview(loadID: loadID, scan: scan, image: filtered, cost: finished - started, readyAt: finished))
    }
}

/// A preview of a load under way, for the main loop.
struct LoadPreview: Sendable {
    let loadID: Int
    /// The scan it shows (1: the first).
    let scan: Int
    /// The preview, filtered as the image will be: what the row shows meanwhile.
    let image: DecodedImage
    /// Decode and filter time (ns): the extra cost of showing it.
    let cost: UInt64
    let readyAt: UInt64
}
