import CShims

/// A progressive JPEG's bytes so far: how many of its scans are complete, and the image as the
/// last of them leaves it (libjpeg's buffered-image mode, `jpeg_progressive.c`), in the same cell,
/// size and crop as `JPEGDecoder`'s final decode.
enum JPEGPreview {
    /// Complete scans in `bytes`: 0 while none is (a baseline file's until its end), -1 when the
    /// bytes are not a JPEG.
    static func completeScans(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        Int(ib_jpeg_scan_ends(bytes.baseAddress, bytes.count, nil, 0))
    }

    /// The preview of `bytes` in a cell of `target`, and the scan it shows; nil while no scan is
    /// complete. Damage within the bytes is the usual typed error.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, target: PixelSize,
                              limits: DecodeLimits) throws(DecodeError) -> (image: DecodedImage, scan: Int)? {
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        var report = ib_decode_report()
        var status: Int32 = 0, needed = 0
        let capacity = target.pixelCount * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: capacity) { output, count in
            (status, needed) = DecodeStatus.controlled(limits) { control in
                ib_jpeg_decode_preview(bytes.baseAddress, bytes.count, UInt32(target.width), UInt32(target.height),
                                       UInt64(limits.maxPixels), output.baseAddress, capacity, &report, control, &message)
            }
            count = status == IB_IMAGE_OK.rawValue && report.scans > 0 ? Int(report.width) * Int(report.height) * 4 : 0
        }
        let sourceSize = PixelSize(width: Int(report.source_width), height: Int(report.source_height))
        if status == IB_IMAGE_TOO_LARGE.rawValue { throw .tooLarge(sourceSize, limit: limits.maxPixels) }
        try DecodeStatus.check(status, message, format: "JPEG", needed: needed, limits: limits)
        guard report.scans > 0 else { return nil }
        var image = DecodedImage(size: PixelSize(width: Int(report.width), height: Int(report.height)), pixels: pixels,
                                 sourceSize: sourceSize)
        image.warnings = Int(report.warnings)
        return (image, Int(report.scans))
    }
}
