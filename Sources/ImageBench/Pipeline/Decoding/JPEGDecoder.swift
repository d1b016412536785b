import CShims

/// Decodes JPEG through libjpeg-turbo into RGBA. Given a target, it returns the image already
/// filled to the cell: DCT scaling (1/2, 1/4, 1/8) does most of the reduction, as ImageIO's
/// thumbnailing does, and the box filter the rest, row by row as libjpeg produces them.
public struct JPEGDecoder: ImageDecoding {
    public init() {}

    public func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        guard let target = targetSize, target.width > 0, target.height > 0 else {
            return try decodeFullSize(bytes, limits: limits)
        }
        return try decodeFilled(bytes, target: target, limits: limits)
    }

    /// Straight to the cell: libjpeg scales by the DCT and each row is box-filtered as it is
    /// decoded (one header parse, no full-size bitmap, no zero-filled buffer).
    private func decodeFilled(_ bytes: [UInt8], target: PixelSize, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        let (pixels, report, status, message, needed) = DecodeStatus.filled(bytes, target: target, limits: limits) {
            source, output, report, control, message in
            ib_jpeg_decode_fill(source.baseAddress, source.count, UInt32(target.width), UInt32(target.height),
                                UInt64(limits.maxPixels), output.baseAddress, output.count, report, control, message)
        }
        let sourceSize = PixelSize(width: Int(report.source_width), height: Int(report.source_height))
        if status == IB_IMAGE_TOO_LARGE.rawValue { throw .tooLarge(sourceSize, limit: limits.maxPixels) }
        try DecodeStatus.check(status, message, format: "JPEG", needed: needed, limits: limits)
        var image = DecodedImage(size: PixelSize(width: Int(report.width), height: Int(report.height)),
                                 pixels: pixels, sourceSize: sourceSize)
        image.warnings = Int(report.warnings)
        return image
    }

    private func decodeFullSize(_ bytes: [UInt8], limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        let info = try Self.info(bytes)
        let size = PixelSize(width: Int(info.width), height: Int(info.height))
        guard size.pixelCount > 0 else { throw .corrupt("zero dimensions \(size)") }
        guard size.pixelCount <= limits.maxPixels else { throw .tooLarge(size, limit: limits.maxPixels) }
        try DecodeStatus.charge(size.pixelCount * 4, limits: limits)
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        var pixels = [UInt8](repeating: 0, count: size.pixelCount * 4)
        var warnings: Int32 = 0
        let (status, needed) = DecodeStatus.controlled(limits) { control in
            bytes.withUnsafeBufferPointer { source in
                pixels.withUnsafeMutableBufferPointer { output in
                    ib_jpeg_decode_rgba(source.baseAddress, source.count, 1, output.baseAddress, output.count, &warnings,
                                        control, &message)
                }
            }
        }
        try DecodeStatus.check(status, message, format: "JPEG", needed: needed, limits: limits)
        var image = DecodedImage(size: size, pixels: pixels)
        image.warnings = Int(warnings)
        return image
    }

    /// The largest libjpeg scale 1/d (d in 1, 2, 4, 8) that still yields at least the target size,
    /// so the box filter has real pixels to average and quality is kept.
    static func scaleDenominator(source: PixelSize, target: PixelSize) -> Int {
        Int(ib_jpeg_scale_for(UInt32(source.width), UInt32(source.height), UInt32(target.width), UInt32(target.height)))
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
        try DecodeStatus.check(status, message, format: "JPEG")
    }
}
