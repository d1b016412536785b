import CShims

/// Decodes AVIF (8-, 10- and 12-bit, 4:2:0 to 4:4:4, with alpha) through libavif and dav1d into
/// RGBA8, on the calling thread only. AV1 has no reduced-scale decode: dav1d decodes the whole
/// frame, which is the cost a phone pays too; given a target, its planes are then converted to
/// RGBA a band of rows at a time into the cell's box filter (`CShims/avif_fill.c`), so no
/// full-size RGBA exists. An image sequence shows its first image. The frame cannot be
/// interrupted once dav1d has it: `--max-decode-mb` bounds it, and a stop is seen before and
/// after it (and between bands).
struct AVIFDecoder: ImageDecoding {
    init() {}

    func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        // Parsing the container gives the size: checked before the frame buffer exists.
        var (info, size) = try DecodeStatus.header(bytes, format: "AVIF", limits: limits, ib_avif_read_info)
        if let target = targetSize, target.width > 0, target.height > 0 {
            return try decodeFilled(bytes, source: size, target: target, limits: limits)
        }
        // The output now; the frame's planes (by depth and subsampling) in the shim, after parsing
        // and before dav1d allocates them.
        let decoded = try DecodeStatus.rgba(bytes, size: size, limits: limits, fullSize: true) { source, output, control, message in
            ib_avif_decode_rgba(source.baseAddress, source.count, UInt64(limits.maxPixels), output.baseAddress, output.count,
                                &info, control, message)
        }
        if decoded.status == IB_IMAGE_TOO_LARGE.rawValue { throw .tooLarge(size, limit: limits.maxPixels) }
        try DecodeStatus.check(decoded.status, decoded.message, format: "AVIF", needed: decoded.needed, limits: limits)
        var image = DecodedImage(size: size, pixels: decoded.pixels)
        image.frames = Int(info.frames)
        return image
    }

    /// Bands of the frame straight into the cell's box filter; the same pixels as a full decode
    /// followed by `Downsampler.aspectFill`.
    private func decodeFilled(_ bytes: [UInt8], source: PixelSize, target: PixelSize,
                              limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        var info = ib_image_info()
        let (pixels, report, status, message, needed) = DecodeStatus.filled(bytes, target: target, limits: limits) {
            input, output, report, control, message in
            ib_avif_decode_fill(input.baseAddress, input.count, UInt64(limits.maxPixels), UInt32(target.width),
                                UInt32(target.height), output.baseAddress, output.count, &info, report, control, message)
        }
        if status == IB_IMAGE_TOO_LARGE.rawValue { throw .tooLarge(source, limit: limits.maxPixels) }
        try DecodeStatus.check(status, message, format: "AVIF", needed: needed, limits: limits)
        var image = DecodedImage(size: PixelSize(width: Int(report.width), height: Int(report.height)), pixels: pixels,
                                 sourceSize: source)
        image.frames = Int(info.frames)
        return image
    }

    /// libavif's version and its codecs', e.g. "0.11.1 (dav1d [dec]:1.0.0, aom [enc/dec]:3.6.0)".
    static var libraryVersion: String {
        var codecs = [CChar](repeating: 0, count: 256)
        ib_avif_codecs(&codecs, codecs.count)
        let text = String(decoding: codecs.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(String(cString: ib_avif_version())) (\(text))"
    }
}
