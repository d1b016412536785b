/// What satisfied a request. Every request has exactly one, so
/// requests = memory + disk + network + merged + error, always.
public enum RequestSource: String, Sendable, Codable, CaseIterable {
    case memory, disk, network, merged, error
}

/// How a request ended for the user.
public enum RequestOutcome: String, Sendable, Codable {
    /// Its final image was on screen.
    case displayed
    /// The row left (or the run ended) before the image arrived.
    case neverDisplayed = "never_displayed"
    /// The load failed while the row was waiting.
    case error
}

/// What cancellation did to the load a request started.
public enum CancelKind: String, Sendable, Codable {
    case none
    case queued
    case inflight
}

/// One visible row's need for one image: the unit every metric counts.
public struct RequestRecord: Sendable, Codable {
    public let id: Int
    /// The simulated user (`--clients`), 0 for a single client.
    public var client = 0
    public let row: Int
    public let imageID: Int
    public let url: String
    /// The frame in which the row became visible.
    public let visibleFrame: Int
    /// When its cellForRow ran (monotonic ns): where its load's queue wait starts.
    public let requestedAt: UInt64
    public var source: RequestSource
    public var outcome: RequestOutcome = .neverDisplayed
    /// The frame the image was displayed in, if it was.
    public var displayFrame: Int?
    /// Display latency in nanoseconds (frame times), if displayed.
    public var latency: UInt64?
    /// The frame the row left the screen in, if it did.
    public var leftFrame: Int?
    /// Placeholder time in nanoseconds (frame times): from the frame the row appeared to the one
    /// its image was shown in, or it left the screen in, or the run ended in. Set at the end of
    /// the run; every request has one (memory hits 0).
    public var placeholder: UInt64?
    /// Ready latency in nanoseconds, unquantised: from cellForRow to the image reaching the main
    /// loop (posted by its worker), for displayed requests (memory hits 0).
    public var ready: UInt64?
    /// The size of the bitmap displayed, if displayed.
    public var displayedSize: PixelSize?
    /// For the request that started a network load: the load's stages, bytes and cancellation.
    public var stages: StageTimes?
    public var bytes: Int = 0
    public var decodeWarnings = 0
    public var cancel: CancelKind = .none
    public var errorClass: ErrorClass?
    public var errorMessage: String?

    public init(id: Int, row: Int, imageID: Int, url: String, visibleFrame: Int, requestedAt: UInt64,
                source: RequestSource) {
        self.id = id
        self.row = row
        self.imageID = imageID
        self.url = url
        self.visibleFrame = visibleFrame
        self.requestedAt = requestedAt
        self.source = source
    }
}

extension RequestRecord {
    /// A request read back from a row of requests.csv (what the reports draw: row, frames,
    /// outcome, latency, source, size, error); nil for a row that is not one.
    public init?(row: [String: String]) {
        guard let id = row["request"].flatMap(Int.init), let tableRow = row["row"].flatMap(Int.init),
              let image = row["image"].flatMap(Int.init), let visible = row["visible_frame"].flatMap(Int.init),
              let source = row["source"].flatMap(RequestSource.init(rawValue:)),
              let outcome = row["outcome"].flatMap(RequestOutcome.init(rawValue:)) else { return nil }
        self.init(id: id, row: tableRow, imageID: image, url: row["url"] ?? "", visibleFrame: visible, requestedAt: 0, source: source)
        client = row["client"].flatMap(Int.init) ?? 0
        self.outcome = outcome
        displayFrame = row["display_frame"].flatMap(Int.init)
        latency = row["latency_ms"].flatMap(Double.init).map { UInt64(($0 * 1e6).rounded()) }
        leftFrame = row["left_frame"].flatMap(Int.init)
        placeholder = row["placeholder_ms"].flatMap(Double.init).map { UInt64(($0 * 1e6).rounded()) }
        ready = row["ready_ms"].flatMap(Double.init).map { UInt64(($0 * 1e6).rounded()) }
        if let width = row["image_width"].flatMap(Int.init), let height = row["image_height"].flatMap(Int.init) {
            displayedSize = PixelSize(width: width, height: height)
        }
        bytes = row["bytes"].flatMap(Int.init) ?? 0
        errorClass = row["error_class"].flatMap(ErrorClass.init(rawValue:))
        errorMessage = row["error"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
