/// Why an image could not be decoded. Each case is a class of error counted in reports.
public enum DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// The library rejected the data: truncated, bit-flipped, bad CRC, not the format it claims.
    case corrupt(String)
    /// Well-formed data the decoders do not handle: animated WebP, 12-bit JPEG, no AV1 codec.
    case unsupported(String)
    /// The header promises more pixels than `--max-pixels` allows; nothing was allocated.
    case tooLarge(PixelSize, limit: Int)
    /// Decoding would allocate `bytes` (full-size bitmaps, coefficients, frame planes), more than
    /// `--max-decode-mb` allows; refused before allocating.
    case overBudget(bytes: Int, limitMegabytes: Int)
    /// The decode was stopped part-way: its load was cancelled or passed its deadline.
    case stopped(DecodeStop.Reason)

    public var description: String {
        switch self {
        case .empty: "empty body"
        case .corrupt(let reason): "corrupt image: \(reason)"
        case .unsupported(let reason): "unsupported image: \(reason)"
        case .tooLarge(let size, let limit): "image of \(size) exceeds --max-pixels \(limit)"
        case .overBudget(let bytes, let limit):
            "decode would need \((bytes + 999_999) / 1_000_000) MB, over --max-decode-mb \(limit)"
        case .stopped(.cancelled): "decode stopped: the load was cancelled"
        case .stopped(.deadline): "decode stopped: the load ran past --timeout"
        }
    }
}

/// Limits that protect memory before a decoder allocates, and time while it works.
///
/// The numbers are a plan's (recorded in summary.json, compared between runs); `stop` is one
/// load's and is neither coded nor compared: the pipeline sets it on its copy for each decode, so
/// `ImageDecoding` keeps its one method.
public struct DecodeLimits: Sendable, Equatable, Codable {
    /// The most pixels (width × height) a header may promise: 50 million by default, a 200 MB
    /// RGBA bitmap, far above any feed photo and far below what would exhaust memory.
    var maxPixels: Int
    /// `--max-decode-mb`: the most one decode may allocate in proportion to the image where it
    /// cannot decode straight to the cell (a full-size bitmap, a progressive JPEG's coefficients,
    /// a lossless WebP's ARGB, an AVIF's planes, a GIF's canvas). 64 MB holds a 16-megapixel
    /// RGBA bitmap; the concurrency multiplies it.
    var maxDecodeMegabytes: Int
    /// What may stop a decode part-way; nil never stops.
    var stop: DecodeStop?

    public static let defaultMaxDecodeMegabytes = 64

    public init(maxPixels: Int = 50_000_000, maxDecodeMegabytes: Int = DecodeLimits.defaultMaxDecodeMegabytes,
                stop: DecodeStop? = nil) {
        self.maxPixels = maxPixels
        self.maxDecodeMegabytes = maxDecodeMegabytes
        self.stop = stop
    }

    var maxDecodeBytes: Int { maxDecodeMegabytes * 1_000_000 }

    private enum CodingKeys: String, CodingKey { case maxPixels, maxDecodeMegabytes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxPixels = try container.decode(Int.self, forKey: .maxPixels)
        // Results from before the flag read as today's default: the same plan unless an image
        // was over it.
        maxDecodeMegabytes = try container.decodeIfPresent(Int.self, forKey: .maxDecodeMegabytes)
            ?? Self.defaultMaxDecodeMegabytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(maxPixels, forKey: .maxPixels)
        try container.encode(maxDecodeMegabytes, forKey: .maxDecodeMegabytes)
    }

    public static func == (a: DecodeLimits, b: DecodeLimits) -> Bool {
        a.maxPixels == b.maxPixels && a.maxDecodeMegabytes == b.maxDecodeMegabytes
    }
}

/// What stops a decode part-way, polled by the decoders between input chunks and rows (never per
/// pixel): the load's cancellation, or its deadline. Decoders see only "stop now"; the reason,
/// asked again once they have stopped, decides how the load ends (cancelled, or a timeout).
public final class DecodeStop: Sendable {
    public enum Reason: Sendable, Equatable { case cancelled, deadline }

    private let check: @Sendable () -> Reason?

    /// `check` answers "stop, and why?"; it runs on the decoding thread, once per row at most.
    init(_ check: @escaping @Sendable () -> Reason?) { self.check = check }

    /// A load's stop: its token cancelled, or `clock` past `deadline` (nanoseconds).
    public convenience init(token: LoadToken, deadline: UInt64?, clock: any RunClock = .monotonic) {
        self.init {
            if token.isCancelled { return .cancelled }
            if let deadline, clock.now() >= deadline { return .deadline }
            return nil
        }
    }

    var reason: Reason? { check() }
}

/// Turns encoded bytes into pixels: already filled to `targetSize` (aspect-fill, no upscaling)
/// when the decoder can do it while decoding (JPEG, non-interlaced PNG, WebP, AVIF), at full size
/// otherwise. Callers aspect-fill the result, which leaves a filled image as it is. `limits`
/// bounds the decode's memory and carries what stops it part-way (`DecodeLimits.stop`).
protocol ImageDecoding: Sendable {
    func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage
}
