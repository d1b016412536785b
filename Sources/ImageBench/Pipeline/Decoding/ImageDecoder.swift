/// The default decoder: sniffs the format from the bytes and hands them to the decoder for it
/// (`ImageFormat.decoder`).
public struct ImageDecoder: ImageDecoding {
    public init() {}

    public func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        guard let decoder = ImageFormat(sniffing: bytes).decoder else { throw .corrupt("not an image (unrecognised leading bytes)") }
        return try decoder.decode(bytes, targetSize: targetSize, limits: limits)
    }
}
