import CShims

/// Decodes a GIF's first frame through giflib into RGBA, on a transparent canvas of the file's
/// screen size, and counts its frames (`DecodedImage.frames`): a feed shows an animation's first
/// frame until it plays. Later frames are skipped without being decompressed.
struct GIFDecoder: ImageDecoding {
    init() {}

    func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        let size = try DecodeStatus.header(bytes, format: "GIF", limits: limits, ib_gif_read_info).size
        var report = ib_decode_report()
        // The canvas is the screen's size, whatever the frame's: charged first.
        let decoded = try DecodeStatus.rgba(bytes, size: size, limits: limits, fullSize: true) { source, output, control, message in
            ib_gif_decode_rgba(source.baseAddress, source.count, UInt64(limits.maxPixels), output.baseAddress, output.count,
                               &report, control, message)
        }
        if decoded.status == IB_IMAGE_TOO_LARGE.rawValue {
            // A frame larger than the screen it is drawn on.
            throw .tooLarge(PixelSize(width: Int(report.source_width), height: Int(report.source_height)), limit: limits.maxPixels)
        }
        try DecodeStatus.check(decoded.status, decoded.message, format: "GIF", needed: decoded.needed, limits: limits)
        var image = DecodedImage(size: size, pixels: decoded.pixels)
        image.frames = Int(report.frames)
        return image
    }

    static var libraryVersion: String { String(cString: ib_gif_version()) }
}
