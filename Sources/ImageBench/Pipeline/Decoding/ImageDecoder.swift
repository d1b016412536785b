/// The default decoder: sniffs the format from the bytes and hands them to the decoder for it.
public struct ImageDecoder: ImageDecoding {
    private let jpeg = JPEGDecoder()
    private let png = PNGDecoder()
    private let webp = WebPDecoder()
    private let avif = AVIFDecoder()
    private let gif = GIFDecoder()

    public init() {}

    public func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        switch ImageFormat(sniffing: bytes) {
        case .jpeg: return try jpeg.decode(bytes, targetSize: targetSize, limits: limits)
        case .png: return try png.decode(bytes, targetSize: targetSize, limits: limits)
        case .webp: return try webp.decode(bytes, targetSize: targetSize, limits: limits)
        case .avif: return try avif.decode(bytes, targetSize: targetSize, limits: limits)
        case .gif: return try gif.decode(bytes, targetSize: targetSize, limits: limits)
        case .unknown: throw .corrupt("not an image (unrecognised leading bytes)")
        }
    }
}
