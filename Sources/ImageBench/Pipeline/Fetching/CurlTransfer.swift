import Foundation

/// One transfer's state, reached from curl's C callbacks through their user-data pointer. Only
/// the thread running the transfer touches it.
final class CurlTransfer {
    let token: LoadToken
    let maxBytes: Int
    let keepsBody: Bool
    var body: [UInt8] = []
    /// Body bytes arrived, kept or not.
    var received = 0
    var tooLarge = false
    /// When the transfer began, its response's first byte came (nil: none did), and when it
    /// began or its last byte arrived.
    let startedAt: UInt64
    var firstByteAt: UInt64?
    var lastActivity: UInt64
    var stalled = false
    /// The blank line that ends a response's headers arrived (of the last response, after redirects
    /// and 100 Continue).
    var headersComplete = false
    let observer: (any BodyObserver)?
    /// `--resume`: where it keeps its body if cancelled, and what it resumes (nil: off).
    let url: String
    let partials: PartialDownloads?
    var resume: ResumeState?
    /// Whether the last response's body has begun (a resumed transfer checks its status then).
    var bodyBegun = false

    init(token: LoadToken, maxBytes: Int, expectedBytes: Int?, keepsBody: Bool = true, url: String = "",
         observer: (any BodyObserver)? = nil, partials: PartialDownloads? = nil, resumeFrom: PartialDownloads.Entry? = nil) {
        self.token = token
        startedAt = MonotonicClock().now()
        lastActivity = startedAt
        self.url = url
        self.partials = partials
        if partials != nil { resume = ResumeState(from: resumeFrom) }
        self.observer = observer
        self.maxBytes = maxBytes
        self.keepsBody = keepsBody
        // A size the source gave is a claim (a manifest's), so only a first buffer is taken on
        // its word; the rest grows as bytes really arrive (`append`).
        if let expectedBytes { body.reserveCapacity(min(expectedBytes, maxBytes, Self.firstBuffer)) }
    }

    /// The first buffer taken on a source's word: 4 MiB, above any feed image.
    static let firstBuffer = 4 << 20

    /// Keeps a piece of the body. The buffer grows geometrically from where it is but never past
    /// --max-bytes: a body without Content-Length is bounded by the limit, not by the limit's
    /// next power of two (Array's own doubling took 64 MiB for a 50 MiB limit).
    func append(_ piece: UnsafeRawBufferPointer) {
        let needed = body.count + piece.count
        if needed > body.capacity { body.reserveCapacity(min(max(needed, body.capacity * 2, 16 << 10), maxBytes)) }
        body.append(contentsOf: piece)
    }

    /// A cancelled transfer's body, for `--resume`: kept when its response could be resumed. One
    /// cancelled before its body began keeps what it resumed, as it was (its response, maybe of
    /// another version of the file, gave nothing to join to it).
    func keepPartial() {
        guard let partials, let resume, !resume.mismatched else { return }
        guard bodyBegun else {
            if let from = resume.from { partials.keep(url, bytes: from.bytes, validator: from.validator, total: from.total) }
            return
        }
        guard resume.status == 200 || resume.status == 206 else { return }
        // A total past --max-bytes (or none) cannot be resumed into a body this transfer accepts.
        guard let total = resume.total, total <= maxBytes, total > body.count else { return }
        partials.keep(url, bytes: body, validator: resume.validator, total: total)
    }

    /// At a resumed transfer's first body byte: a 206 for exactly the rest of the same file
    /// (from the kept bytes' end to its end, of its size) starts from the kept bytes; any other
    /// answer is a body of its own (a 200 is the whole file: the range was refused).
    /// False: a 206 of another range, which must not be joined to them.
    func beginBody() -> Bool {
        bodyBegun = true
        guard let resume, let from = resume.from else { return true }
        guard resume.status == 206 else {
            if (200..<300).contains(resume.status) { self.resume?.refused = true }
            return true
        }
        // from.total is a kept body's size (at least 1, at most --max-bytes): `total - 1` cannot
        // overflow, where the peer's `end + 1` could.
        guard resume.rangeStart == from.bytes.count, let end = resume.rangeEnd, end == from.total - 1,
              resume.rangeTotal == from.total else {
            self.resume?.mismatched = true
            return false
        }
        body = from.bytes
        body.reserveCapacity(from.total)  // at most --max-bytes: only such totals are kept
        return true
    }
}
