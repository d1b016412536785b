import CShims
import Foundation
import Testing
@testable import ImageBench

/// Issue 28: a decode's memory is set by the cell, or refused over `--max-decode-mb` before it is
/// allocated (stopping decodes: DecodeStopTests).
@Suite("Decodes bounded in memory")
struct DecodeBoundsTests {
    static let cell = ImagePipeline.defaultTargetSize

    /// A palette PNG, built by hand (the corpus encoder writes no PLTE): `bits` per index, a
    /// tRNS entry making index 1 half transparent.
    static func palettePNG(size: PixelSize, bits: Int) throws -> [UInt8] {
        func be(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        let colours = 1 << bits
        let rowBytes = (size.width * bits + 7) / 8
        var raw = [UInt8]()
        for y in 0..<size.height {
            raw.append(0)
            var row = [UInt8](repeating: 0, count: rowBytes)
            for x in 0..<size.width {
                let index = (x / 7 + y / 5) % colours
                let bit = x * bits
                row[bit / 8] |= UInt8(index << (8 - bits - bit % 8))
            }
            raw += row
        }
        var compressedLength = compressBound(UInt(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        #expect(compress(&compressed, &compressedLength, raw, UInt(raw.count)) == Z_OK)
        var palette = [UInt8]()
        for index in 0..<colours {
            let red = UInt8(truncatingIfNeeded: index * 37), green = UInt8(truncatingIfNeeded: index * 91)
            palette += [red, green, UInt8(truncatingIfNeeded: 255 - index * 13)]
        }
        typealias H = ChildProcessRuns.HostileSourceTests
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + H.chunk("IHDR", be(size.width) + be(size.height) + [UInt8(bits), 3, 0, 0, 0])
            + H.chunk("PLTE", palette) + H.chunk("tRNS", [255, 128])
            + H.chunk("IDAT", Array(compressed.prefix(Int(compressedLength)))) + H.chunk("IEND", [])
    }

    /// Real encoded PNGs of every layout libpng expands differently.
    static func layouts(_ size: PixelSize) throws -> [(String, [UInt8])] {
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 3)
        let gray = stride(from: 0, to: rgb.count, by: 3).map { rgb[$0] }
        var rgba = [UInt8](), grayAlpha = [UInt8]()
        for i in 0..<size.pixelCount {
            rgba += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], UInt8(i % 251)]
            grayAlpha += [gray[i], UInt8(i % 253)]
        }
        let wide: [UInt8] = rgba.flatMap { (sample: UInt8) -> [UInt8] in [sample, sample &* 7] }  // 16-bit, big-endian pairs
        let gray16: [UInt8] = gray.flatMap { (sample: UInt8) -> [UInt8] in [sample, 255 - sample] }
        return [
            ("rgb", try ImageEncoder.png(rgb, size: size, layout: .rgb)),
            ("rgba", try ImageEncoder.png(rgba, size: size, layout: .rgba)),
            ("gray", try ImageEncoder.png(gray, size: size, layout: .gray)),
            ("gray+alpha", try ImageEncoder.png(grayAlpha, size: size, layout: .grayAlpha)),
            ("rgba 16-bit", try ImageEncoder.png(wide, size: size, layout: .rgba, bitDepth: 16)),
            ("gray 16-bit", try ImageEncoder.png(gray16, size: size, layout: .gray, bitDepth: 16)),
            ("palette 8-bit", try palettePNG(size: size, bits: 8)),
            ("palette 2-bit", try palettePNG(size: size, bits: 2)),
        ]
    }

    @Test("a PNG streamed to the cell equals the full decode aspect-filled afterwards, for every layout and shape",
          arguments: [(700, 500), (333, 901), (240, 240), (150, 90), (1000, 241)])
    func streamedPNGEqualsFullDecode(width: Int, height: Int) throws {
        let size = PixelSize(width: width, height: height)
        for (name, bytes) in try Self.layouts(size) {
            let full = try PNGDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
            #expect(full.size == size, "\(name)")
            let expected = Downsampler.aspectFill(full, to: Self.cell)
            let streamed = try PNGDecoder().decode(bytes, targetSize: Self.cell, limits: DecodeLimits())
            #expect(streamed.size == expected.size && streamed.sourceSize == size, "\(name) \(size)")
            #expect(streamed.pixels == expected.pixels, "\(name) \(size): streamed pixels differ from the full decode's")
        }
    }

    /// An Adam7-interlaced 8-bit RGB PNG of `rgb`, built by hand (the corpus encoder writes none):
    /// each pass's pixels, each row after a filter byte of 0.
    static func interlacedPNG(_ rgb: [UInt8], size: PixelSize) -> [UInt8] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw = [UInt8]()
        for (x0, y0, dx, dy) in passes where x0 < size.width && y0 < size.height {
            for y in stride(from: y0, to: size.height, by: dy) {
                raw.append(0)
                for x in stride(from: x0, to: size.width, by: dx) { raw += rgb[(y * size.width + x) * 3..<(y * size.width + x) * 3 + 3] }
            }
        }
        var compressedLength = compressBound(UInt(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        _ = compress(&compressed, &compressedLength, raw, UInt(raw.count))
        func be(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        typealias H = ChildProcessRuns.HostileSourceTests
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + H.chunk("IHDR", be(size.width) + be(size.height) + [8, 2, 0, 0, 1])
            + H.chunk("IDAT", Array(compressed.prefix(Int(compressedLength)))) + H.chunk("IEND", [])
    }

    @Test("an interlaced PNG decodes whole (charged), then fills the cell: the same pixels as the file without interlacing")
    func interlacedPNG() throws {
        let size = PixelSize(width: 700, height: 500)
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 6)
        let interlaced = Self.interlacedPNG(rgb, size: size)
        let plain = try ImageEncoder.png(rgb, size: size, layout: .rgb)
        #expect(try ImageDecoder().decode(interlaced, targetSize: nil, limits: DecodeLimits()).pixels
                == ImageDecoder().decode(plain, targetSize: nil, limits: DecodeLimits()).pixels)
        let filled = Downsampler.aspectFill(try ImageDecoder().decode(interlaced, targetSize: Self.cell, limits: DecodeLimits()), to: Self.cell)
        #expect(filled.pixels == (try ImageDecoder().decode(plain, targetSize: Self.cell, limits: DecodeLimits())).pixels)
        // 1.4 MB full size: over a 1 MB budget interlaced, within it streamed.
        let tight = DecodeLimits(maxDecodeMegabytes: 1)
        var rgba = [UInt8]()
        rgba.reserveCapacity(size.pixelCount * 4)
        for i in 0..<size.pixelCount { rgba += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], UInt8(i % 200)] }
        #expect(throws: DecodeError.overBudget(bytes: size.pixelCount * 4, limitMegabytes: 1)) {
            try ImageDecoder().decode(interlaced, targetSize: Self.cell, limits: tight)
        }
        #expect(try ImageDecoder().decode(plain, targetSize: Self.cell, limits: tight).size == Self.cell)
    }

    @Test("an AVIF converted in bands into the cell equals the full decode aspect-filled afterwards",
          // 300 × 318 and 300 × 446 crop from an odd row (9, 73): a band's top moves up to an even
          // row, a row above its margin, which once wrote one row past the band's buffer.
          arguments: [(700, 500, 8, 3), (333, 901, 10, 4), (240, 240, 8, 4), (150, 91, 8, 3), (1000, 241, 10, 3),
                      (300, 318, 8, 3), (300, 446, 8, 4)])
    func bandedAVIFEqualsFullDecode(width: Int, height: Int, depth: Int, channels: Int) throws {
        let size = PixelSize(width: width, height: height)
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 8)
        var pixels = rgb
        if channels == 4 {
            pixels = []
            for i in 0..<size.pixelCount { pixels += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], UInt8(i % 199)] }
        }
        let bytes = try ImageEncoder.avif(pixels, size: size, channels: channels, quantizer: 30, depth: depth, speed: 10)
        let full = try AVIFDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())
        let expected = Downsampler.aspectFill(full, to: Self.cell)
        let banded = try AVIFDecoder().decode(bytes, targetSize: Self.cell, limits: DecodeLimits())
        #expect(banded.size == expected.size && banded.sourceSize == size && banded.frames == full.frames)
        #expect(banded.pixels == expected.pixels, "\(size) \(depth)-bit, \(channels) channels: banded pixels differ")
    }

    @Test("a PNG truncated inside its image data is corrupt on the streamed path too")
    func truncatedStreamedPNG() throws {
        let size = PixelSize(width: 400, height: 300)
        let bytes = try ImageEncoder.png(PhotoSynthesizer.rgb(size: size, seed: 5), size: size, layout: .rgb)
        #expect(throws: DecodeError.self) {
            try PNGDecoder().decode(Array(bytes.prefix(bytes.count / 2)), targetSize: Self.cell, limits: DecodeLimits())
        }
    }

    /// Each format's full-size buffer over a 1 MB budget (a 1000 × 1000 image needs 4 MB): refused
    /// as over budget, of class too_large; the same image to the cell where the library allows it.
    @Test("full-size buffers are charged before allocating: over --max-decode-mb is a too_large refusal")
    func overBudget() throws {
        let size = PixelSize(width: 1000, height: 1000)
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 2)
        let tight = DecodeLimits(maxDecodeMegabytes: 1)
        var rgba = [UInt8]()
        rgba.reserveCapacity(size.pixelCount * 4)
        for i in 0..<size.pixelCount { rgba += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], UInt8(i % 200)] }
        let quantized = try ImageEncoder.quantize(rgb, size: size)
        let refused: [(String, [UInt8], PixelSize?)] = [
            ("PNG full size", try ImageEncoder.png(rgb, size: size, layout: .rgb), nil),
            ("progressive JPEG", try ImageEncoder.jpeg(rgb, size: size, channels: 3, progressive: true), Self.cell),
            ("lossless WebP", try ImageEncoder.webp(rgb, size: size, channels: 3, quality: nil), Self.cell),
            ("lossy WebP with alpha", try ImageEncoder.webp(rgba, size: size, channels: 4, quality: 80), Self.cell),
            ("progressive JPEG full size", try ImageEncoder.jpeg(rgb, size: size, channels: 3, progressive: true), nil),
            ("AVIF", try ImageEncoder.avif(rgb, size: size, channels: 3, quantizer: 40, speed: 10), Self.cell),
            ("GIF", try ImageEncoder.gif(frames: [quantized.indices], size: size, palette: quantized.palette), Self.cell),
        ]
        for (name, bytes, target) in refused {
            do {
                _ = try ImageDecoder().decode(bytes, targetSize: target, limits: tight)
                Issue.record("\(name) decoded within 1 MB")
            } catch {
                guard case .overBudget(let needed, 1) = error else { Issue.record("\(name): \(error)"); continue }
                #expect(needed >= 1_000_000 && needed < 20_000_000, "\(name) needs \(needed)")
                #expect(LoadFailure.decode(error).errorClass == .tooLarge)
                #expect(error.description.hasPrefix("decode would need") && error.description.hasSuffix("over --max-decode-mb 1"))
            }
        }
        // Straight to the cell, nothing full-size: within the same budget.
        for (name, bytes) in [("PNG", refused[0].1), ("baseline JPEG", try ImageEncoder.jpeg(rgb, size: size, channels: 3)),
                              ("lossy WebP", try ImageEncoder.webp(rgb, size: size, channels: 3, quality: 80))] {
            #expect(try ImageDecoder().decode(bytes, targetSize: Self.cell, limits: tight).size == Self.cell, "\(name)")
        }
        // A full-size progressive JPEG: its 4 MB output and 3 MB of coefficients in one budget.
        let progressive = try ImageEncoder.jpeg(rgb, size: size, channels: 3, progressive: true)
        #expect {
            try ImageDecoder().decode(progressive, targetSize: nil, limits: DecodeLimits(maxDecodeMegabytes: 5))
        } throws: { error in
            guard case DecodeError.overBudget(let needed, 5) = error else { return false }
            return needed > 5_000_000
        }
        #expect(try ImageDecoder().decode(progressive, targetSize: nil, limits: DecodeLimits(maxDecodeMegabytes: 12)).size == size)
    }

    @Test("plans recorded before --max-decode-mb read with today's default; the limit round-trips")
    func coding() throws {
        let old = try JSONDecoder().decode(DecodeLimits.self, from: Data(#"{"maxPixels": 1000}"#.utf8))
        #expect(old == DecodeLimits(maxPixels: 1000, maxDecodeMegabytes: DecodeLimits.defaultMaxDecodeMegabytes))
        let limits = DecodeLimits(maxPixels: 7, maxDecodeMegabytes: 9)
        #expect(try JSONDecoder().decode(DecodeLimits.self, from: JSONEncoder().encode(limits)) == limits)
    }
}
