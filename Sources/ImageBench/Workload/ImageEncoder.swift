import CShims
import CPNG

/// Encodes pixels with libjpeg-turbo and libpng: how the corpus gets real files, and how tests make
/// images with known pixel values.
public enum ImageEncoder {
    public struct EncodeError: Error, CustomStringConvertible {
        public let description: String
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

        public var channels: Int {
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
