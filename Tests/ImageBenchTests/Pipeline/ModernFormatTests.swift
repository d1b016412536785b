import CShims
import Testing
@testable import ImageBench

/// WebP, AVIF and GIF decoded through libwebp, libavif (dav1d) and giflib, from files their own
/// encoders made: exact sizes, known pixel values, typed errors for damaged files, the pixel limit.
@Suite("Decoding real WebP, AVIF and GIF")
struct ModernFormatTests {
    let size = PixelSize(width: 64, height: 48)
    static let centres = [(8, 8), (56, 8), (8, 40), (56, 40)]

    func expectQuadrants(_ image: DecodedImage, tolerance: Int, _ what: String) {
        #expect(image.size == size, "\(what)")
        for (x, y) in Self.centres {
            let expected = Fixtures.quadrantColour(x: x, y: y, size: size) + [255]
            #expect(close(image.pixel(x: x, y: y), expected, tolerance: tolerance), "\(what) (\(x), \(y)): \(image.pixel(x: x, y: y)) vs \(expected)")
        }
    }

    /// RGBA with alpha rising left to right: 0 in the first column, 252 in the last.
    func rampAlpha(_ rgb: [UInt8]) -> [UInt8] {
        var rgba = [UInt8]()
        for i in 0..<size.pixelCount {
            rgba += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], UInt8(i % size.width * 4)]
        }
        return rgba
    }

    @Test("lossy WebP decodes to its size and colours")
    func webpLossy() throws {
        let bytes = try ImageEncoder.webp(Fixtures.quadrants(size: size), size: size, channels: 3, quality: 90)
        #expect(ImageFormat(sniffing: bytes) == .webp)
        expectQuadrants(try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits()), tolerance: 6, "lossy")
    }

    @Test("lossless WebP decodes to exactly the pixels encoded, alpha included")
    func webpLossless() throws {
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 11)
        let opaque = try ImageDecoder().decode(try ImageEncoder.webp(rgb, size: size, channels: 3, quality: nil),
                                               targetSize: nil, limits: DecodeLimits())
        var expected = [UInt8]()
        for i in 0..<size.pixelCount { expected += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], 255] }
        #expect(opaque.pixels == expected)
        let rgba = rampAlpha(rgb)
        let bytes = try ImageEncoder.webp(rgba, size: size, channels: 4, quality: nil)
        var info = ib_image_info()
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        #expect(ib_webp_read_info(bytes, bytes.count, &info, &message) == 0)
        #expect(info.lossless == 1 && info.has_alpha == 1)
        let image = try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        // Fully transparent pixels may have their colour dropped by the encoder; alpha is exact.
        let alphas: [UInt8] = stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }
        let expectedAlphas: [UInt8] = stride(from: 3, to: rgba.count, by: 4).map { rgba[$0] }
        #expect(alphas == expectedAlphas)
        let mismatched = image.pixels.indices.filter { rgba[$0 | 3] != 0 && image.pixels[$0] != rgba[$0] }
        #expect(mismatched.isEmpty)
    }

    @Test("lossy WebP with alpha keeps its alpha exactly")
    func webpLossyAlpha() throws {
        let rgba = rampAlpha(Fixtures.quadrants(size: size))
        let image = try ImageDecoder().decode(try ImageEncoder.webp(rgba, size: size, channels: 4, quality: 90),
                                              targetSize: nil, limits: DecodeLimits())
        #expect(image.size == size)
        for x in [0, 10, 33, 63] { #expect(image.pixel(x: x, y: 20)[3] == UInt8(x * 4)) }
        #expect(close(Array(image.pixel(x: 56, y: 40).prefix(3)), [240, 240, 240], tolerance: 6))
    }

    @Test("WebP decodes scaled and cropped to the cell, close to a full decode box-filtered afterwards")
    func webpScaled() throws {
        let big = PixelSize(width: 400, height: 300)
        let bytes = try ImageEncoder.webp(PhotoSynthesizer.rgb(size: big, seed: 4), size: big, channels: 3, quality: 85)
        let cell = PixelSize(width: 120, height: 120)
        let scaled = try WebPDecoder().decode(bytes, targetSize: cell, limits: DecodeLimits())
        let reference = Downsampler.aspectFill(try WebPDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits()), to: cell)
        #expect(scaled.size == PixelSize(width: 120, height: 120) && scaled.sourceSize == big)
        #expect(scaled.size == reference.size)
        // libwebp's rescaler is not a box filter, and it rounds an odd crop edge down to even.
        let mean = zip(scaled.pixels, reference.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / scaled.pixels.count
        #expect(mean <= 4, "mean difference \(mean)")
    }

    @Test("AVIF at 8 and 10 bits decodes to its size and colours", arguments: [8, 10])
    func avif(depth: Int) throws {
        let bytes = try ImageEncoder.avif(Fixtures.quadrants(size: size), size: size, channels: 3, quantizer: 10, depth: depth)
        #expect(ImageFormat(sniffing: bytes) == .avif)
        var info = ib_image_info()
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        #expect(ib_avif_read_info(bytes, bytes.count, &info, &message) == 0)
        #expect(Int(info.bit_depth) == depth && info.frames == 1 && info.has_alpha == 0)
        expectQuadrants(try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits()), tolerance: 8, "\(depth)-bit")
    }

    @Test("AVIF with alpha keeps its alpha exactly (lossless alpha plane)")
    func avifAlpha() throws {
        let rgba = rampAlpha(Fixtures.quadrants(size: size))
        let image = try AVIFDecoder().decode(try ImageEncoder.avif(rgba, size: size, channels: 4, quantizer: 10),
                                             targetSize: nil, limits: DecodeLimits())
        for x in [0, 10, 33, 63] { #expect(image.pixel(x: x, y: 20)[3] == UInt8(x * 4)) }
    }

    /// Four colours, one per quadrant, the last palette entry transparent in the bottom-right.
    func quadrantIndices(transparentCorner: Bool) -> [UInt8] {
        (0..<size.pixelCount).map { i in
            let x = i % size.width, y = i / size.width
            let index: UInt8 = switch (x < size.width / 2, y < size.height / 2) {
            case (true, true): 0
            case (false, true): 1
            case (true, false): 2
            case (false, false): transparentCorner ? 3 : 0
            }
            return index
        }
    }
    let palette: [UInt8] = [200, 30, 30, 30, 200, 30, 30, 30, 200, 9, 9, 9]

    @Test("a static GIF decodes exactly, its transparent index clear")
    func gifStatic() throws {
        let bytes = try ImageEncoder.gif(frames: [quadrantIndices(transparentCorner: true)], size: size, palette: palette, transparent: 3)
        #expect(ImageFormat(sniffing: bytes) == .gif)
        let image = try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        #expect(image.size == size && image.frames == 1)
        #expect(image.pixel(x: 8, y: 8) == [200, 30, 30, 255] && image.pixel(x: 56, y: 8) == [30, 200, 30, 255])
        #expect(image.pixel(x: 8, y: 40) == [30, 30, 200, 255] && image.pixel(x: 56, y: 40) == [0, 0, 0, 0])
    }

    @Test("a graphics control block of a non-standard length is ignored, never half-read: no transparency, the same every time")
    func gifOddControlBlock() throws {
        var bytes = try ImageEncoder.gif(frames: [quadrantIndices(transparentCorner: true)], size: size, palette: palette, transparent: 3)
        let control = try #require(bytes.indices.first { bytes[$0] == 0x21 && bytes[$0 + 1] == 0xF9 && bytes[$0 + 2] == 4 })
        bytes[control + 2] = 5
        bytes.insert(0, at: control + 7)  // a fifth data byte; the block's terminator follows
        let images = try (0..<3).map { _ in try GIFDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits()) }
        #expect(images.allSatisfy { $0 == images[0] })
        #expect(images[0].pixel(x: 56, y: 40) == [9, 9, 9, 255] && images[0].pixel(x: 8, y: 8) == [200, 30, 30, 255])
    }

    @Test("an animated GIF shows its first frame and counts them all")
    func gifAnimated() throws {
        let first = quadrantIndices(transparentCorner: false)
        let later = [UInt8](repeating: 2, count: size.pixelCount)
        let bytes = try ImageEncoder.gif(frames: [first, later, later, later, later], size: size, palette: palette)
        let image = try GIFDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        #expect(image.frames == 5)
        #expect(image.pixel(x: 8, y: 8) == [200, 30, 30, 255] && image.pixel(x: 56, y: 40) == [200, 30, 30, 255])
    }

    static func encoded(_ format: ImageFormat, size: PixelSize) throws -> [UInt8] {
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 8)
        switch format {
        case .webp: return try ImageEncoder.webp(rgb, size: size, channels: 3, quality: 80)
        case .avif: return try ImageEncoder.avif(rgb, size: size, channels: 3, quantizer: 30)
        default:
            let quantized = try ImageEncoder.quantize(rgb, size: size)
            return try ImageEncoder.gif(frames: [quantized.indices], size: size, palette: quantized.palette)
        }
    }

    @Test("a corrupt and a truncated file of each format is a typed error", arguments: [ImageFormat.webp, .avif, .gif])
    func damaged(format: ImageFormat) throws {
        let bytes = try Self.encoded(format, size: PixelSize(width: 96, height: 64))
        let name = ["webp": "WebP", "avif": "AVIF", "gif": "GIF"][format.rawValue]!
        var corrupt = bytes
        // Past the signature that sniffing reads: the headers and the start of the data. A GIF's
        // palette takes any bytes, so its damage starts at the frame's compressed data.
        let start = format == .gif ? try Self.gifFrameData(bytes) : 32
        for index in start..<min(start + 368, corrupt.count) { corrupt[index] = 0xA5 }
        let truncated = Array(bytes.prefix(bytes.count / 2))
        for damaged in [corrupt, truncated] {
            #expect(ImageFormat(sniffing: damaged) == format)
            #expect {
                try ImageDecoder().decode(damaged, targetSize: nil, limits: DecodeLimits())
            } throws: { error in
                guard case .corrupt(let reason) = error as? DecodeError else { return false }
                return reason.hasPrefix(name)
            }
        }
    }

    /// Where the first frame's LZW data starts: after the header, the global palette, the
    /// extensions and the 10-byte image descriptor.
    static func gifFrameData(_ bytes: [UInt8]) throws -> Int {
        let palette = bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0
        let descriptor = try #require((13 + palette..<bytes.count).first { bytes[$0] == 0x2C })
        return descriptor + 10
    }

    @Test("dav1d's stderr logger is off: damaged AVIF is a typed error, not text over the progress line")
    func dav1dQuiet() {
        #expect(ib_dav1d_logger_silenced() == 1)
    }

    @Test("a header over --max-pixels is refused before allocating", arguments: [ImageFormat.webp, .avif, .gif])
    func tooLarge(format: ImageFormat) throws {
        let size = PixelSize(width: 96, height: 64)
        let bytes = try Self.encoded(format, size: size)
        for target in [nil, PixelSize(width: 30, height: 30)] {
            #expect(throws: DecodeError.tooLarge(size, limit: 6143)) {
                try ImageDecoder().decode(bytes, targetSize: target, limits: DecodeLimits(maxPixels: 6143))
            }
        }
        #expect(try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits(maxPixels: 6144)).size == size)
    }

    @Test("a GIF frame claiming more than --max-pixels is refused though its screen is small")
    func gifHugeFrame() throws {
        var bytes = try ImageEncoder.gif(frames: [quadrantIndices(transparentCorner: false)], size: size, palette: palette)
        // The image descriptor: 0x2C, left, top, then width and height (little-endian).
        let descriptor = try Self.gifFrameData(bytes) - 10
        for offset in 5...8 { bytes[descriptor + offset] = 0xFF }
        #expect(throws: DecodeError.tooLarge(PixelSize(width: 65535, height: 65535), limit: 1_000_000)) {
            try GIFDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits(maxPixels: 1_000_000))
        }
    }
}
