import CShims

/// Decodes JPEG through libjpeg-turbo into RGBA, using its DCT scaling (1/2, 1/4, 1/8) when the
/// target is much smaller than the photo: the decode does less work, as ImageIO's thumbnailing does.
public struct JPEGDecoder: ImageDecoding {
    public init() {}

    public func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        let info = try Self.info(bytes)
        let sourceSize = PixelSize(width: Int(info.width), height: Int(info.height))
        guard sourceSize.pixelCount > 0 else { throw .corrupt("zero dimensions \(sourceSize)") }
        guard sourceSize.pixelCount <= limits.maxPixels else {
            throw .tooLarge(sourceSize, limit: limits.maxPixels)
        }
        let denominator = targetSize.map { Self.scaleDenominator(source: sourceSize, target: $0) } ?? 1
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        var width: UInt32 = 0
        var height: UInt32 = 0
        var status = bytes.withUnsafeBufferPointer { buffer in
            ib_jpeg_scaled_size(buffer.baseAddress, buffer.count, Int32(denominator), &width, &height, &message)
        }
        try Self.check(status, message)
        let size = PixelSize(width: Int(width), height: Int(height))
        var pixels = [UInt8](repeating: 0, count: size.pixelCount * 4)
        var warnings: Int32 = 0
        status = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { output in
                ib_jpeg_decode_rgba(source.baseAddress, source.count, Int32(denominator),
                                    output.baseAddress, output.count, &warnings, &message)
            }
        }
        try Self.check(status, message)
        var image = DecodedImage(size: size, pixels: pixels, sourceSize: sourceSize)
        image.warnings = Int(warnings)
        return image
    }

    /// The largest libjpeg scale 1/d (d in 1, 2, 4, 8) that still yields at least the target size,
    /// so the later downsample has real pixels to average and quality is kept.
    static func scaleDenominator(source: PixelSize, target: PixelSize) -> Int {
        var denominator = 1
        for candidate in [2, 4, 8] {
            let width = (source.width + candidate - 1) / candidate
            let height = (source.height + candidate - 1) / candidate
            if width >= target.width && height >= target.height { denominator = candidate }
        }
        return denominator
    }

    static func info(_ bytes: [UInt8]) throws(DecodeError) -> ib_image_info {
        var info = ib_image_info()
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        let status = bytes.withUnsafeBufferPointer { buffer in
            ib_jpeg_read_info(buffer.baseAddress, buffer.count, &info, &message)
        }
        try check(status, message)
        return info
    }

    static func check(_ status: Int32, _ message: [CChar]) throws(DecodeError) {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch ib_image_status(rawValue: UInt32(status)) {
        case IB_IMAGE_OK: return
        case IB_IMAGE_UNSUPPORTED: throw .unsupported("JPEG: \(text)")
        case IB_IMAGE_NO_MEMORY: throw .corrupt("JPEG: out of memory: \(text)")
        default: throw .corrupt("JPEG: \(text)")
        }
    }
}
