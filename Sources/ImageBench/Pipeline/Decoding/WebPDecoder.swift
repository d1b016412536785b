import CShims

/// Decodes WebP (lossy VP8, lossless VP8L, with or without alpha) through libwebp into RGBA.
/// Given a target, libwebp crops and scales while it decodes, so the image comes out already
/// filled to the cell: its scaled decode, the one reduced-scale path WebP has. Animated WebP is
/// unsupported (a typed error).
struct WebPDecoder: ImageDecoding {
    init() {}

    func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .empty }
        let source = try DecodeStatus.header(bytes, format: "WebP", limits: limits, ib_webp_read_info).size
        var geometry = ib_fill_geometry(out_width: UInt32(source.width), out_height: UInt32(source.height), crop_x: 0,
                                        crop_y: 0, crop_width: UInt32(source.width), crop_height: UInt32(source.height))
        if let target = targetSize, target.width > 0, target.height > 0 {
            ib_fill_geometry_for(UInt32(source.width), UInt32(source.height), UInt32(target.width), UInt32(target.height), &geometry)
        }
        let size = PixelSize(width: Int(geometry.out_width), height: Int(geometry.out_height))
        // Scaled (lossy) decodes need a few rows; full-size ones their bitmap; lossless ones also
        // libwebp's full-size ARGB, which the shim charges.
        let decoded = try DecodeStatus.rgba(bytes, size: size, limits: limits, fullSize: size == source) {
            source, output, control, message in
            ib_webp_decode_rgba(source.baseAddress, source.count, &geometry, output.baseAddress, output.count, control, message)
        }
        try DecodeStatus.check(decoded.status, decoded.message, format: "WebP", needed: decoded.needed, limits: limits)
        return DecodedImage(size: size, pixels: decoded.pixels, sourceSize: source)
    }

    /// libwebp's decoder version, e.g. 1.2.4.
    static var libraryVersion: String {
        let version = Int(ib_webp_version())
        return "\(version >> 16 & 0xFF).\(version >> 8 & 0xFF).\(version & 0xFF)"
    }
}
