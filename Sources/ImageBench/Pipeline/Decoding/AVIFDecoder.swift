import CShims

/// Decodes AVIF (8-, 10- and 12-bit, 4:2:0 to 4:4:4, with alpha) through libavif and dav1d into
/// RGBA8, on the calling thread only. AV1 has no reduced-scale decode: the caller downsamples the
/// full-size image, which is the cost a phone pays too. An image sequence shows its first image.
public struct AVIFDecoder: ImageDecoding {
    public init() {}

    public func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        // Parsing the container gives the size: checked before the frame buffer exists.
        var (info, size) = try DecodeStatus.header(bytes, format: "AVIF", limits: limits, ib_avif_read_info)
        var message = DecodeStatus.messageBuffer()
        var decodeStatus: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: size.pixelCount * 4) { output, count in
            decodeStatus = bytes.withUnsafeBufferPointer {
                ib_avif_decode_rgba($0.baseAddress, $0.count, UInt64(limits.maxPixels), output.baseAddress, output.count,
                                    &info, &message)
            }
            count = decodeStatus == IB_IMAGE_OK.rawValue ? size.pixelCount * 4 : 0
        }
        if decodeStatus == IB_IMAGE_TOO_LARGE.rawValue { throw .tooLarge(size, limit: limits.maxPixels) }
        try DecodeStatus.check(decodeStatus, message, format: "AVIF")
        var image = DecodedImage(size: size, pixels: pixels)
        image.frames = Int(info.frames)
        return image
    }

    /// libavif's version and its codecs', e.g. "0.11.1 (dav1d [dec]:1.0.0, aom [enc/dec]:3.6.0)".
    public static var libraryVersion: String {
        var codecs = [CChar](repeating: 0, count: 256)
        ib_avif_codecs(&codecs, codecs.count)
        let text = String(decoding: codecs.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(String(cString: ib_avif_version())) (\(text))"
    }
}
