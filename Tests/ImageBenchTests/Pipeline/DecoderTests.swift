import CShims
import Testing
@testable import ImageBench

@Suite("Decoding real JPEG and PNG")
struct DecoderTests {
    let size = PixelSize(width: 64, height: 48)

    @Test("baseline and progressive JPEG decode to their size and colours", arguments: [false, true])
    func jpeg(progressive: Bool) throws {
        let bytes = try ImageEncoder.jpeg(Fixtures.quadrants(size: size), size: size, channels: 3, quality: 95,
                                          progressive: progressive)
        #expect(ImageFormat(sniffing: bytes) == .jpeg)
        let info = try JPEGDecoder.info(bytes)
        #expect(info.progressive == (progressive ? 1 : 0))
        let image = try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        #expect(image.size == size)
        // Centres of each quadrant, away from block edges where JPEG rings.
        for (x, y) in [(8, 8), (56, 8), (8, 40), (56, 40)] {
            let expected = Fixtures.quadrantColour(x: x, y: y, size: size) + [255]
            #expect(close(image.pixel(x: x, y: y), expected, tolerance: 4), "pixel (\(x), \(y)): \(image.pixel(x: x, y: y)) vs \(expected)")
        }
    }

    @Test("JPEG decodes at 1/2, 1/4, 1/8 when the target is small")
    func jpegScaling() throws {
        let big = PixelSize(width: 800, height: 600)
        let bytes = try ImageEncoder.jpeg(Fixtures.quadrants(size: big), size: big, channels: 3)
        #expect(JPEGDecoder.scaleDenominator(source: big, target: PixelSize(width: 240, height: 240)) == 2)
        #expect(JPEGDecoder.scaleDenominator(source: big, target: PixelSize(width: 100, height: 75)) == 8)
        #expect(JPEGDecoder.scaleDenominator(source: big, target: PixelSize(width: 801, height: 10)) == 1)
        let image = try JPEGDecoder().decode(bytes, targetSize: PixelSize(width: 100, height: 75), limits: DecodeLimits())
        #expect(image.size == PixelSize(width: 100, height: 75))
        #expect(image.sourceSize == big)
        #expect(close(image.pixel(x: 10, y: 10), [200, 30, 30, 255], tolerance: 6))
    }

    @Test("decoding straight to the cell gives the bytes of a scaled decode box-filtered afterwards, within one level at cut edges", arguments: [
        (320, 200, 60, 60), (400, 300, 240, 240), (410, 307, 240, 240), (90, 160, 60, 60), (50, 40, 60, 60),
    ])
    func filledWhileDecoding(width: Int, height: Int, cellWidth: Int, cellHeight: Int) throws {
        let size = PixelSize(width: width, height: height)
        let cell = PixelSize(width: cellWidth, height: cellHeight)
        let bytes = try ImageEncoder.jpeg(PhotoSynthesizer.rgb(size: size, seed: 5), size: size, channels: 3, quality: 85)
        let filled = try JPEGDecoder().decode(bytes, targetSize: cell, limits: DecodeLimits())
        let denominator = JPEGDecoder.scaleDenominator(source: size, target: cell)
        var scaledWidth: UInt32 = 0, scaledHeight: UInt32 = 0, warnings: Int32 = 0
        var message = [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY))
        #expect(ib_jpeg_scaled_size(bytes, bytes.count, Int32(denominator), &scaledWidth, &scaledHeight, &message) == 0)
        let scaled = PixelSize(width: Int(scaledWidth), height: Int(scaledHeight))
        var pixels = [UInt8](repeating: 0, count: scaled.pixelCount * 4)
        #expect(ib_jpeg_decode_rgba(bytes, bytes.count, Int32(denominator), &pixels, pixels.count, &warnings, nil, &message) == 0)
        let reference = Downsampler.aspectFill(DecodedImage(size: scaled, pixels: pixels, sourceSize: size), to: cell)
        #expect(filled.size == reference.size)
        // Only the crop is decoded, and chroma upsampling at a cut edge may differ by one level.
        let differences = zip(filled.pixels, reference.pixels).map { abs(Int($0) - Int($1)) }
        #expect(differences.max() ?? 0 <= 1)
        #expect(differences.filter { $0 > 0 }.count * 100 <= filled.pixels.count, "more than 1% of bytes differ")
        #expect(filled.sourceSize == size)
        #expect(filled.size.width <= cell.width && filled.size.height <= cell.height)
        // Filling a filled image changes nothing.
        #expect(Downsampler.aspectFill(filled, to: cell) == filled)
    }

    @Test("a JPEG promising more pixels than --max-pixels is refused before decoding, straight-to-cell or not")
    func filledTooLarge() throws {
        let size = PixelSize(width: 200, height: 100)
        let bytes = try ImageEncoder.jpeg(PhotoSynthesizer.rgb(size: size, seed: 6), size: size, channels: 3)
        for target in [PixelSize(width: 60, height: 60), nil] {
            #expect(throws: DecodeError.tooLarge(size, limit: 19_999)) {
                try JPEGDecoder().decode(bytes, targetSize: target, limits: DecodeLimits(maxPixels: 19_999))
            }
        }
    }

    @Test("grayscale JPEG expands to RGBA")
    func grayJPEG() throws {
        let pixels = [UInt8](repeating: 128, count: 32 * 32)
        let bytes = try ImageEncoder.jpeg(pixels, size: PixelSize(width: 32, height: 32), channels: 1, quality: 100)
        let image = try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        #expect(close(image.pixel(x: 16, y: 16), [128, 128, 128, 255], tolerance: 1))
    }

    @Test("8-bit RGB PNG decodes exactly")
    func pngRGB() throws {
        let rgb = Fixtures.quadrants(size: size)
        let bytes = try ImageEncoder.png(rgb, size: size, layout: .rgb)
        #expect(ImageFormat(sniffing: bytes) == .png)
        let image = try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        #expect(image.size == size)
        for (x, y) in [(0, 0), (63, 0), (0, 47), (63, 47), (31, 23), (32, 24)] {
            #expect(image.pixel(x: x, y: y) == Fixtures.quadrantColour(x: x, y: y, size: size) + [255])
        }
    }

    @Test("RGBA PNG keeps its alpha")
    func pngRGBA() throws {
        let pixels: [UInt8] = [10, 20, 30, 0, 40, 50, 60, 128, 70, 80, 90, 255, 1, 2, 3, 4]
        let bytes = try ImageEncoder.png(pixels, size: PixelSize(width: 2, height: 2), layout: .rgba)
        let image = try PNGDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        #expect(image.pixels == pixels)
    }

    @Test("grayscale and gray+alpha PNG replicate gray into RGB")
    func pngGray() throws {
        let gray = try ImageEncoder.png([0, 100, 200, 255], size: PixelSize(width: 4, height: 1), layout: .gray)
        #expect(try PNGDecoder().decode(gray, targetSize: nil, limits: DecodeLimits()).pixels
                == [0, 0, 0, 255, 100, 100, 100, 255, 200, 200, 200, 255, 255, 255, 255, 255])
        let grayAlpha = try ImageEncoder.png([50, 7, 150, 250], size: PixelSize(width: 2, height: 1), layout: .grayAlpha)
        #expect(try PNGDecoder().decode(grayAlpha, targetSize: nil, limits: DecodeLimits()).pixels
                == [50, 50, 50, 7, 150, 150, 150, 250])
    }

    @Test("16-bit PNG scales samples to 8 bits with rounding, no gamma change")
    func png16() throws {
        // Big-endian 16-bit RGB: 0xFFFF, 0x8080 (→128), 0x0000; then 0x1234 (→18), 0xABCD (→171), 0x7FFF (→128).
        let samples: [UInt16] = [0xFFFF, 0x8080, 0x0000, 0x1234, 0xABCD, 0x7FFF]
        let bytes = samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let png = try ImageEncoder.png(bytes, size: PixelSize(width: 2, height: 1), layout: .rgb, bitDepth: 16)
        let image = try PNGDecoder().decode(png, targetSize: nil, limits: DecodeLimits())
        let expected = samples.map { UInt8((Int($0) * 255 + 32767) / 65535) }
        #expect(image.pixels == [expected[0], expected[1], expected[2], 255, expected[3], expected[4], expected[5], 255])
    }

    @Test("a corrupt JPEG is a typed error and the process lives")
    func corruptJPEG() throws {
        var bytes = try ImageEncoder.jpeg(Fixtures.quadrants(size: size), size: size, channels: 3)
        // Keep the SOI marker, destroy the headers after it.
        for index in 4..<min(200, bytes.count) { bytes[index] = 0xA5 }
        #expect {
            try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        } throws: { error in
            guard case .corrupt(let reason) = error as? DecodeError else { return false }
            return reason.hasPrefix("JPEG")
        }
    }

    @Test("a truncated PNG is a typed error")
    func truncatedPNG() throws {
        let bytes = try ImageEncoder.png(Fixtures.quadrants(size: size), size: size, layout: .rgb)
        let truncated = Array(bytes.prefix(bytes.count / 2))
        #expect(throws: DecodeError.corrupt("PNG: unexpected end of data (truncated PNG)")) {
            try ImageDecoder().decode(truncated, targetSize: nil, limits: DecodeLimits())
        }
    }

    @Test("headers over --max-pixels are refused before allocating")
    func maxPixels() throws {
        let bytes = try ImageEncoder.png(Fixtures.quadrants(size: size), size: size, layout: .rgb)
        #expect(throws: DecodeError.tooLarge(size, limit: 1000)) {
            try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits(maxPixels: 1000))
        }
    }

    @Test("formats are sniffed from bytes, not names")
    func sniffing() {
        #expect(ImageFormat(sniffing: Array("GIF89a....".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat(sniffing: [0, 0, 0, 0x1C] + Array("ftypavif\u{0}\u{0}\u{0}\u{0}mif1miaf".utf8)) == .avif)
        #expect(ImageFormat(sniffing: [0, 0, 0, 0x1C] + Array("ftypmif1\u{0}\u{0}\u{0}\u{0}avifmiaf".utf8)) == .avif)
        #expect(ImageFormat(sniffing: [0, 0, 0, 0x18] + Array("ftypisom\u{0}\u{0}\u{0}\u{0}mp41".utf8)) == .unknown)
        #expect(ImageFormat(sniffing: Array("<html>".utf8)) == .unknown)
        #expect(throws: DecodeError.self) {
            try ImageDecoder().decode(Array("GIF89a....".utf8), targetSize: nil, limits: DecodeLimits())
        }
        #expect(throws: DecodeError.empty) { try ImageDecoder().decode([], targetSize: nil, limits: DecodeLimits()) }
    }
}
