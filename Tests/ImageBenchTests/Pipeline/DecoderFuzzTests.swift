import Foundation
import Testing
@testable import ImageBench

/// A bounded mutation fuzzer for the decoders: real encoded images (baseline and progressive
/// JPEG, gray JPEG, PNG in every layout and 16-bit, lossy and lossless WebP with and without alpha,
/// 8- and 10-bit AVIF, static and animated GIF) mutated thousands of ways, each decoded. A
/// decoder may only return an image or a typed error: a crash, a libjpeg exit(), an overrun (run
/// it under -sanitize=address) or a hang fails the run.
///
/// CI runs a fixed 2,000 mutations. For a long session:
///   ASAN_OPTIONS=detect_leaks=0 IMGBENCH_FUZZ_SECONDS=600 IMGBENCH_FUZZ_SEED=7 \
///     swift test --sanitize=address --filter DecoderFuzzTests
/// (LeakSanitizer would otherwise report XCTest's own runner, which leaks 144 bytes at exit.)
@Suite("Decoder fuzzing")
struct DecoderFuzzTests {
    static func seeds() throws -> [[UInt8]] {
        var seeds = ImageCorpus.generate(count: 16, seed: 99).images.map(\.bytes)
        let size = PixelSize(width: 37, height: 29)  // odd sizes exercise edge blocks and row padding
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 3)
        let gray = stride(from: 0, to: rgb.count, by: 3).map { rgb[$0] }
        seeds.append(try ImageEncoder.jpeg(gray, size: size, channels: 1, quality: 70))
        seeds.append(try ImageEncoder.jpeg(rgb, size: size, channels: 3, quality: 95, progressive: true))
        seeds.append(try ImageEncoder.png(gray, size: size, layout: .gray))
        seeds.append(try ImageEncoder.png(gray.flatMap { [$0, 255 - $0] }, size: size, layout: .grayAlpha))
        seeds.append(try ImageEncoder.png(rgb.flatMap { [$0, $0] }, size: size, layout: .rgb, bitDepth: 16))
        var rgba = [UInt8]()
        for i in 0..<size.pixelCount { rgba += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], UInt8(i % 256)] }
        seeds.append(try ImageEncoder.webp(rgb, size: size, channels: 3, quality: 75))
        seeds.append(try ImageEncoder.webp(rgba, size: size, channels: 4, quality: 75))
        seeds.append(try ImageEncoder.webp(rgba, size: size, channels: 4, quality: nil))
        seeds.append(try ImageEncoder.avif(rgb, size: size, channels: 3, quantizer: 30))
        seeds.append(try ImageEncoder.avif(rgba, size: size, channels: 4, quantizer: 30, depth: 10))
        let quantized = try ImageEncoder.quantize(rgb, size: size, colors: 64)
        seeds.append(try ImageEncoder.gif(frames: [quantized.indices], size: size, palette: quantized.palette))
        seeds.append(try ImageEncoder.gif(frames: [quantized.indices, quantized.indices.reversed(), quantized.indices],
                                          size: size, palette: quantized.palette, transparent: 5))
        return seeds
    }

    /// Recomputes every PNG chunk's CRC, so a mutation gets past the CRC check into the parser.
    static func fixingPNGCRCs(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 0, offset + 12 + length <= bytes.count else { break }
            let crc = Fixtures.crc32(Array(bytes[(offset + 4)..<(offset + 8 + length)]))
            for index in 0..<4 { bytes[offset + 8 + length + index] = UInt8((crc >> (24 - 8 * UInt32(index))) & 0xFF) }
            offset += 12 + length
        }
        return bytes
    }

    static func mutate(_ original: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = original
        func index(_ limit: Int) -> Int { Int(random.next() % UInt64(max(1, limit))) }
        // Headers hold the most parsing logic: aim a third of the mutations at the first 200 bytes.
        let headers = random.unit() < 0.33
        for _ in 0..<(1 + index(4)) where !bytes.isEmpty {
            let span = headers ? min(200, bytes.count) : bytes.count
            switch index(7) {
            case 0: bytes[index(span)] ^= UInt8(1 << index(8))
            case 1: bytes[index(span)] = [0x00, 0xFF, 0x7F, 0x80][index(4)]
            case 2: bytes[index(span)] = UInt8(truncatingIfNeeded: random.next())
            case 3: bytes = Array(bytes.prefix(index(bytes.count)))
            case 4:
                let start = index(bytes.count), length = index(min(64, bytes.count - start))
                bytes.insert(contentsOf: bytes[start..<start + length], at: index(bytes.count))
            case 5:
                let start = index(bytes.count), length = index(min(64, bytes.count - start))
                bytes.removeSubrange(start..<start + length)
            default:
                // A big-endian 16/32-bit field set to an extreme: dimensions, lengths, counts.
                let at = index(max(1, span - 4))
                let value: [UInt8] = [[0, 0], [0xFF, 0xFF], [0, 1], [0x7F, 0xFF]][index(4)]
                if at + 1 < bytes.count { bytes[at] = value[0]; bytes[at + 1] = value[1] }
            }
        }
        if ImageFormat(sniffing: original) == .png, random.unit() < 0.5 { bytes = fixingPNGCRCs(bytes) }
        return bytes
    }

    @Test("mutated images of every format decode to an image or a typed error, never a crash")
    func mutations() throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["IMGBENCH_FUZZ_SECONDS"].flatMap(Double.init)
        let iterations = seconds == nil ? 2_000 : Int.max
        var random = SeededRandom(seed: environment["IMGBENCH_FUZZ_SEED"].flatMap(UInt64.init) ?? 1, stream: "fuzz")
        let seeds = try Self.seeds()
        let decoder = ImageDecoder()
        let limits = DecodeLimits(maxPixels: 4_000_000)
        let started = Date()
        var decoded = 0, failed: [String: Int] = [:], slowest = 0.0, done = 0
        var tried: [ImageFormat: Int] = [:]
        while done < iterations, seconds.map({ Date().timeIntervalSince(started) < $0 }) ?? true {
            let seed = seeds[done % seeds.count]
            let input = Self.mutate(seed, &random)
            tried[ImageFormat(sniffing: seed), default: 0] += 1
            let target: PixelSize? = random.unit() < 0.5 ? ImagePipeline.defaultTargetSize : nil
            let start = Date()
            do {
                let image = try decoder.decode(input, targetSize: target, limits: limits)
                #expect(image.size.pixelCount > 0 && image.pixels.count == image.size.pixelCount * 4)
                #expect(image.sourceSize.pixelCount <= limits.maxPixels)
                _ = Downsampler.aspectFill(image, to: ImagePipeline.defaultTargetSize)
                decoded += 1
            } catch {
                failed[LoadFailure.decode(error).errorClass.rawValue, default: 0] += 1
            }
            slowest = max(slowest, Date().timeIntervalSince(start))
            done += 1
        }
        print("decoder fuzzing: \(done) inputs in \(String(format: "%.0f", Date().timeIntervalSince(started))) s: "
              + "\(decoded) decoded, failed \(failed.sorted { $0.key < $1.key }), slowest \(String(format: "%.3f", slowest)) s; "
              + "per format \(tried.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))")
        #expect(Set(tried.keys) == Set(ImageFormat.decodable), "every format is fuzzed")
        // Both fates occur, or the mutations are too timid (or too brutal) to test anything.
        #expect(decoded > done / 20 && failed.values.reduce(0, +) > done / 20)
    }
}
