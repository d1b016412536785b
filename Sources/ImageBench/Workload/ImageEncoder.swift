import CShims
import CPNG

/// Encodes pixels with libjpeg-turbo, libpng, libwebp, libavif (libaom) and giflib: how the corpus
/// gets real files, and how tests make images with known pixel values.
public enum ImageEncoder {
    struct EncodeError: Error, CustomStringConvertible {
        let description: String
    }

    /// 8-bit gray (1 channel) or RGB (3 channels) to JPEG.
    public static func jpeg(_ pixels: [UInt8], size: PixelSize, channels: Int, quality: Int = 82,
                            progressive: Bool = false) throws -> [UInt8] {
        precondition(channels == 1 || channels == 3, "JPEG takes gray or RGB")
        precondition(pixels.count == size.pixelCount * channels, "pixel buffer does not match \(size)")
        return try encode { out, length, message in
            pixels.withUnsafeBufferPointer {
                ib_jpeg_encode($0.baseAddress, UInt32(size.width), UInt32(size.height), Int32(channels),
                               Int32(quality), progressive ? 1 : 0, &out, &length, message)
            }
        }
    }

    /// The PNG colour layouts the encoder writes.
    public enum PNGLayout: Sendable {
        case gray, grayAlpha, rgb, rgba

        var colorType: Int32 {
            switch self {
            case .gray: PNG_COLOR_TYPE_GRAY
            case .grayAlpha: PNG_COLOR_TYPE_GRAY_ALPHA
            case .rgb: PNG_COLOR_TYPE_RGB
            case .rgba: PNG_COLOR_TYPE_RGB_ALPHA
            }
        }

        var channels: Int {
            switch self {
            case .gray: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }
    }

    /// Pixels to PNG; with `bitDepth` 16 each sample is two big-endian bytes.
    public static func png(_ pixels: [UInt8], size: PixelSize, layout: PNGLayout, bitDepth: Int = 8,
                           compressionLevel: Int = 6) throws -> [UInt8] {
        precondition(bitDepth == 8 || bitDepth == 16, "PNG bit depth 8 or 16")
        precondition(pixels.count == size.pixelCount * layout.channels * bitDepth / 8,
                     "pixel buffer does not match \(size)")
        return try encode { out, length, message in
            pixels.withUnsafeBufferPointer {
                ib_png_encode($0.baseAddress, UInt32(size.width), UInt32(size.height), layout.colorType,
                              Int32(bitDepth), Int32(compressionLevel), &out, &length, message)
            }
        }
    }

    /// RGB (3 channels) or RGBA (4) to WebP: lossy at `quality` 0–100, or lossless (`quality` nil).
    static func webp(_ pixels: [UInt8], size: PixelSize, channels: Int, quality: Float?) throws -> [UInt8] {
        precondition(channels == 3 || channels == 4, "WebP takes RGB or RGBA")
        precondition(pixels.count == size.pixelCount * channels, "pixel buffer does not match \(size)")
        return try encode { out, length, message in
            pixels.withUnsafeBufferPointer {
                ib_webp_encode($0.baseAddress, UInt32(size.width), UInt32(size.height), Int32(channels),
                               quality ?? 100, quality == nil ? 1 : 0, &out, &length, message)
            }
        }
    }

    /// RGB (3 channels) or RGBA (4) to AVIF, 4:2:0 at `depth` bits (8 or 10) with one AV1
    /// `quantizer` (0 best to 63); alpha lossless. `speed` is libaom's (0 slowest to 10 fastest):
    /// it changes how long encoding takes and, a little, the bytes; decoding reads any.
    static func avif(_ pixels: [UInt8], size: PixelSize, channels: Int, quantizer: Int, depth: Int = 8,
                            speed: Int = 8) throws -> [UInt8] {
        precondition(channels == 3 || channels == 4, "AVIF takes RGB or RGBA")
        precondition(depth == 8 || depth == 10, "AVIF depth 8 or 10")
        precondition(pixels.count == size.pixelCount * channels, "pixel buffer does not match \(size)")
        return try encode { out, length, message in
            pixels.withUnsafeBufferPointer {
                ib_avif_encode($0.baseAddress, UInt32(size.width), UInt32(size.height), Int32(channels), Int32(depth),
                               Int32(quantizer), Int32(speed), &out, &length, message)
            }
        }
    }

    /// Frames of palette indices (each `size.pixelCount` long) with one palette (RGB triples, at
    /// most 256 colours) to a GIF89a; `transparent` names the clear index.
    static func gif(frames: [[UInt8]], size: PixelSize, palette: [UInt8], transparent: Int? = nil,
                           delayCentiseconds: Int = 10) throws -> [UInt8] {
        precondition(!frames.isEmpty && frames.allSatisfy { $0.count == size.pixelCount }, "frames do not match \(size)")
        precondition(palette.count % 3 == 0 && (3...768).contains(palette.count), "1 to 256 RGB palette entries")
        let indices = frames.flatMap { $0 }
        return try encode { out, length, message in
            indices.withUnsafeBufferPointer { indices in
                palette.withUnsafeBufferPointer {
                    ib_gif_encode(indices.baseAddress, Int32(frames.count), UInt32(size.width), UInt32(size.height),
                                  $0.baseAddress, Int32(palette.count / 3), Int32(transparent ?? -1),
                                  Int32(delayCentiseconds), &out, &length, message)
                }
            }
        }
    }

    /// RGB to at most `colors` palette entries (giflib's median cut): the indices and the palette.
    static func quantize(_ rgb: [UInt8], size: PixelSize, colors: Int = 256) throws -> (indices: [UInt8], palette: [UInt8]) {
        precondition(rgb.count == size.pixelCount * 3 && (2...256).contains(colors))
        var indices = [UInt8](repeating: 0, count: size.pixelCount)
        var palette = [UInt8](repeating: 0, count: 768)
        var count: Int32 = 0
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        let status = ib_gif_quantize(rgb, UInt32(size.width), UInt32(size.height), Int32(colors), &indices, &palette, &count, &message)
        guard status == 0 else { throw EncodeError(description: "quantizing failed") }
        return (indices, Array(palette.prefix(Int(count) * 3)))
    }

    private static func encode(
        _ call: (inout UnsafeMutablePointer<UInt8>?, inout Int, UnsafeMutablePointer<CChar>) -> Int32
    ) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        let status = message.withUnsafeMutableBufferPointer { call(&out, &length, $0.baseAddress!) }
        defer { ib_free(out) }
        guard status == 0, let out else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw EncodeError(description: "encoding failed: \(text)")
        }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}
