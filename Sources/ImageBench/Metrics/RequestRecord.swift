/// What satisfied a request. Every request has exactly one, so
/// requests = memory + disk + network + merged + error, always.
public enum RequestSource: String, Sendable, Codable, CaseIterable {
    case memory, disk, network, merged, error
}

/// How a request ended for the user.
enum RequestOutcome: String, Sendable, Codable {
    /// Its final image was on screen.
    case displayed
    /// The row left (or the run ended) before the image arrived.
    case neverDisplayed = "never_displayed"
    /// The load failed while the row was waiting.
    case error
}

/// What cancellation did to the load a request started.
enum CancelKind: String, Sendable, Codable {
    case none
    case queued
    case inflight
}

/// One visible row's need for one image: the unit every metric counts.
///
/// Stored compactly (a crowd of users holds one per request: 100 users × 1,000 rows is 100,000
/// of them): counts and frame numbers in 32 bits, the optional times as sentinel values, the
/// stage times in microseconds, so a record is 168 bytes, not 280. The properties read and write
/// as the plain types.
public struct RequestRecord: Sendable {
    private var storedID: Int32, storedClient: Int32 = 0, storedRow: Int32, storedImageID: Int32, storedVisibleFrame: Int32
    private var storedDisplayFrame: Int32 = -1, storedLeftFrame: Int32 = -1, storedPreviewFrame: Int32 = -1
    private var storedWidth: Int32 = -1, storedHeight: Int32 = -1
    private var storedLatency = UInt64.max, storedPlaceholder = UInt64.max, storedReady = UInt64.max
    /// The connection, compact: its facts' times in microseconds, the protocol as an index of
    /// `protocols` (0: none reported).
    private var storedConnect: UInt32 = 0, storedTLS: UInt32 = 0
    private var storedProtocol: UInt8 = 0, storedOpened = false
    private static let protocols = ["", "1.0", "1.1", "2", "3"]

    var id: Int { Int(storedID) }
    /// The simulated user (`--clients`), 0 for a single client.
    var client: Int {
        get { Int(storedClient) }
        set { storedClient = Int32(clamping: newValue) }
    }
    var row: Int { Int(storedRow) }
    var imageID: Int { Int(storedImageID) }
    let url: String
    /// The frame in which the row became visible.
    var visibleFrame: Int { Int(storedVisibleFrame) }
    /// When its cellForRow ran (monotonic ns): where its load's queue wait starts.
    let requestedAt: UInt64
    public var source: RequestSource
    var outcome: RequestOutcome = .neverDisplayed
    /// The frame the image was displayed in, if it was.
    var displayFrame: Int? {
        get { Self.frame(storedDisplayFrame) }
        set { storedDisplayFrame = Self.frame(newValue) }
    }
    /// The frame its first progressive preview was shown in (`--progressive`), if one was
    /// before the image.
    var previewFrame: Int? {
        get { Self.frame(storedPreviewFrame) }
        set { storedPreviewFrame = Self.frame(newValue) }
    }
    /// Display latency in nanoseconds (frame times), if displayed.
    public var latency: UInt64? {
        get { Self.time(storedLatency) }
        set { storedLatency = newValue ?? .max }
    }
    /// The frame the row left the screen in, if it did.
    var leftFrame: Int? {
        get { Self.frame(storedLeftFrame) }
        set { storedLeftFrame = Self.frame(newValue) }
    }
    /// Placeholder time in nanoseconds (frame times): from the frame the row appeared to the one
    /// its image (or a preview of it) was shown in, or it left the screen in, or the run ended in. Set at the end of
    /// the run; every request has one (memory hits 0).
    var placeholder: UInt64? {
        get { Self.time(storedPlaceholder) }
        set { storedPlaceholder = newValue ?? .max }
    }
    /// Ready latency in nanoseconds, unquantised: from cellForRow to the image reaching the main
    /// loop (posted by its worker), for displayed requests (memory hits 0).
    var ready: UInt64? {
        get { Self.time(storedReady) }
        set { storedReady = newValue ?? .max }
    }
    /// The size of the bitmap displayed, if displayed.
    var displayedSize: PixelSize? {
        get { storedWidth < 0 ? nil : PixelSize(width: Int(storedWidth), height: Int(storedHeight)) }
        set {
            storedWidth = newValue.map { Int32(clamping: $0.width) } ?? -1
            storedHeight = newValue.map { Int32(clamping: $0.height) } ?? -1
        }
    }
    /// For the request that started a network load: the load's stages (kept to the microsecond,
    /// as requests.csv and the stage histograms have them), bytes and cancellation.
    public var stages: StageTimes? {
        get { storedStages.map(\.times) }
        set { storedStages = newValue.map(MicrosecondStages.init) }
    }
    private var storedStages: MicrosecondStages?
    /// For the request that started a network load: the connection its last attempt went over.
    var connection: ConnectionFacts? {
        get {
            guard storedProtocol > 0 || storedOpened else { return nil }
            return ConnectionFacts(protocolVersion: storedProtocol > 0 ? Self.protocols[Int(storedProtocol)] : nil, opened: storedOpened,
                                   connect: UInt64(storedConnect) * 1_000, tlsHandshake: UInt64(storedTLS) * 1_000)
        }
        set {
            storedProtocol = newValue?.protocolVersion.flatMap { Self.protocols.firstIndex(of: $0) }.map(UInt8.init) ?? 0
            storedOpened = newValue?.opened ?? false
            storedConnect = UInt32(clamping: (newValue?.connect ?? 0) / 1_000)
            storedTLS = UInt32(clamping: (newValue?.tlsHandshake ?? 0) / 1_000)
        }
    }
    var bytes: Int = 0
    var decodeWarnings = 0
    var cancel: CancelKind = .none
    var errorClass: ErrorClass?
    var errorMessage: String?

    public init(id: Int, row: Int, imageID: Int, url: String, visibleFrame: Int, requestedAt: UInt64,
                source: RequestSource) {
        storedID = Int32(clamping: id)
        storedRow = Int32(clamping: row)
        storedImageID = Int32(clamping: imageID)
        self.url = url
        storedVisibleFrame = Int32(clamping: visibleFrame)
        self.requestedAt = requestedAt
        self.source = source
    }

    /// Stage times in whole microseconds, each up to 71 minutes (longer is kept as that).
    private struct MicrosecondStages: Sendable {
        var queueWait, diskRead, timeToFirstByte, transfer, decode, filter, delivery: UInt32

        init(_ times: StageTimes) {
            func micro(_ nanoseconds: UInt64) -> UInt32 { UInt32(clamping: nanoseconds / 1_000) }
            (queueWait, diskRead, timeToFirstByte) = (micro(times.queueWait), micro(times.diskRead), micro(times.timeToFirstByte))
            (transfer, decode, filter, delivery) = (micro(times.transfer), micro(times.decode), micro(times.filter), micro(times.delivery))
        }

        var times: StageTimes {
            var times = StageTimes(queueWait: UInt64(queueWait) * 1_000, diskRead: UInt64(diskRead) * 1_000)
            (times.timeToFirstByte, times.transfer) = (UInt64(timeToFirstByte) * 1_000, UInt64(transfer) * 1_000)
            (times.decode, times.filter, times.delivery) = (UInt64(decode) * 1_000, UInt64(filter) * 1_000, UInt64(delivery) * 1_000)
            return times
        }
    }

    private static func frame(_ stored: Int32) -> Int? { stored < 0 ? nil : Int(stored) }
    private static func frame(_ value: Int?) -> Int32 { value.map { Int32(clamping: max(0, $0)) } ?? -1 }
    private static func time(_ stored: UInt64) -> UInt64? { stored == .max ? nil : stored }
}

extension RequestRecord {
    /// Milliseconds from a file, as nanoseconds: nil for text that is no number, a negative,
    /// infinite or not-a-number value, or one past a year (a hostile file must not trap the
    /// conversion to a whole number).
    static func nanoseconds(_ text: String?) -> UInt64? {
        guard let milliseconds = text.flatMap(Double.init), milliseconds.isFinite, milliseconds >= 0,
              milliseconds < 365 * 86_400_000 else { return nil }
        return UInt64((milliseconds * 1e6).rounded())
    }

    /// A request read back from a row of requests.csv (what the reports draw: row, frames,
    /// outcome, latency, source, size, error); nil for a row that is not one.
    init?(row: [String: String]) {
        guard let id = row["request"].flatMap(Int.init), let tableRow = row["row"].flatMap(Int.init),
              let image = row["image"].flatMap(Int.init), let visible = row["visible_frame"].flatMap(Int.init),
              let source = row["source"].flatMap(RequestSource.init(rawValue:)),
              let outcome = row["outcome"].flatMap(RequestOutcome.init(rawValue:)) else { return nil }
        // When it was asked for, from the cell's start (files of imgbench 0.2 and earlier: 0).
        let requested = Self.nanoseconds(row["requested_ms"]) ?? 0
        self.init(id: id, row: tableRow, imageID: image, url: row["url"] ?? "", visibleFrame: visible, requestedAt: requested, source: source)
        client = row["client"].flatMap(Int.init) ?? 0
        self.outcome = outcome
        displayFrame = row["display_frame"].flatMap(Int.init)
        latency = Self.nanoseconds(row["display_ms"] ?? row["latency_ms"])
        leftFrame = row["left_frame"].flatMap(Int.init)
        previewFrame = row["preview_frame"].flatMap(Int.init)
        placeholder = Self.nanoseconds(row["placeholder_ms"])
        ready = Self.nanoseconds(row["ready_ms"])
        if let width = row["image_width"].flatMap(Int.init), let height = row["image_height"].flatMap(Int.init) {
            displayedSize = PixelSize(width: width, height: height)
        }
        bytes = row["bytes"].flatMap(Int.init) ?? 0
        errorClass = row["error_class"].flatMap(ErrorClass.init(rawValue:))
        errorMessage = row["error"].flatMap { $0.isEmpty ? nil : $0 }
        if let opened = row["new_connection"], !opened.isEmpty {
            connection = ConnectionFacts(protocolVersion: row["protocol"].flatMap { $0.isEmpty ? nil : $0 }, opened: opened == "1",
                                         connect: Self.nanoseconds(row["connect_ms"]) ?? 0, tlsHandshake: Self.nanoseconds(row["tls_ms"]) ?? 0)
        }
    }
}
