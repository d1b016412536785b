import CShims

/// Decodes PNG through libpng into RGBA, exactly: palette, gray and 16-bit images are expanded and
/// scaled without gamma changes, so decoded values are the file's values. Given a target, a
/// non-interlaced file goes straight to the cell (libpng's progressive reader, each row into the
/// box filter as it is inflated: `CShims/png_stream.c`), so no full-size bitmap exists; an
/// interlaced one, or a full-size decode, needs the whole bitmap, charged against
/// `--max-decode-mb` first.
struct PNGDecoder: ImageDecoding {
    init() {}

    func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        let (info, size) = try DecodeStatus.header(bytes, format: "PNG", limits: limits, ib_png_read_info)
        if let target = targetSize, target.width > 0, target.height > 0, info.progressive == 0 {
            return try decodeFilled(bytes, source: size, target: target, limits: limits)
        }
        try DecodeStatus.charge(size.pixelCount * 4, limits: limits)
        var message = DecodeStatus.messageBuffer()
        var pixels = [UInt8](repeating: 0, count: size.pixelCount * 4)
        let (status, needed) = DecodeStatus.controlled(limits) { control in
            bytes.withUnsafeBufferPointer { source in
                pixels.withUnsafeMutableBufferPointer { output in
                    ib_png_decode_rgba(source.baseAddress, source.count, output.baseAddress, output.count, control, &message)
                }
            }
        }
        try DecodeStatus.check(status, message, format: "PNG", needed: needed, limits: limits)
        return DecodedImage(size: size, pixels: pixels)
    }

    /// Rows straight into the cell's box filter; the same pixels as a full decode followed by
    /// `Downsampler.aspectFill`.
    private func decodeFilled(_ bytes: [UInt8], source: PixelSize, target: PixelSize,
                              limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        let (pixels, report, status, message, needed) = DecodeStatus.filled(bytes, target: target, limits: limits) {
            input, output, report, control, message in
            ib_png_decode_fill(input.baseAddress, input.count, UInt32(target.width), UInt32(target.height),
                               output.baseAddress, output.count, report, control, message)
        }
        try DecodeStatus.check(status, message, format: "PNG", needed: needed, limits: limits)
        return DecodedImage(size: PixelSize(width: Int(report.width), height: Int(report.height)), pixels: pixels,
                            sourceSize: source)
    }
}
