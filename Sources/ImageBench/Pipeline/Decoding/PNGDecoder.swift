import CShims

/// Decodes PNG through libpng into RGBA, exactly: palette, gray and 16-bit images are expanded and
/// scaled without gamma changes, so decoded values are the file's values.
public struct PNGDecoder: ImageDecoding {
    public init() {}

    public func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        let size = try DecodeStatus.header(bytes, format: "PNG", limits: limits, ib_png_read_info).size
        var message = DecodeStatus.messageBuffer()
        var pixels = [UInt8](repeating: 0, count: size.pixelCount * 4)
        let status = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { output in
                ib_png_decode_rgba(source.baseAddress, source.count, output.baseAddress, output.count, &message)
            }
        }
        try DecodeStatus.check(status, message, format: "PNG")
        return DecodedImage(size: size, pixels: pixels)
    }
}
