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

    public var description: String {
        switch self {
        case .empty: "empty body"
        case .corrupt(let reason): "corrupt image: \(reason)"
        case .unsupported(let reason): "unsupported image: \(reason)"
        case .tooLarge(let size, let limit): "image of \(size) exceeds --max-pixels \(limit)"
        }
    }
}

/// Limits that protect memory before a decoder allocates.
public struct DecodeLimits: Sendable, Equatable, Codable {
    /// The most pixels (width × height) a header may promise: 50 million by default, a 200 MB
    /// RGBA bitmap, far above any feed photo and far below what would exhaust memory.
    public var maxPixels: Int

    public init(maxPixels: Int = 50_000_000) { self.maxPixels = maxPixels }
}

/// Turns encoded bytes into pixels: already filled to `targetSize` (aspect-fill, no upscaling)
/// when the decoder can do it while decoding (JPEG, WebP), at full size otherwise. Callers aspect-fill
/// the result, which leaves a filled image as it is.
public protocol ImageDecoding: Sendable {
    func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage
}
