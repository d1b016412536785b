import CShims
import Foundation
import Synchronization
import Testing
@testable import ImageBench

/// Issue 28: a decode's memory is set by the cell, or refused over `--max-decode-mb` before it is
/// allocated; and a decode stops part-way when told to.
@Suite("Decodes bounded in memory and stoppable")
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

    /// A PNG whose image data inflates to about 8 GB from about 8 MB: a 40,000 × 25,000 RGBA
    /// 16-bit header (10^9 pixels, 8 bytes each) and a zlib stream of zeros. Deflating 4 MiB of
    /// zeros with Z_FULL_FLUSH leaves a segment that refers to nothing before it, so its bytes
    /// repeated are a valid stream; its end is never reached.
    static func pngBomb() throws -> [UInt8] {
        var stream = z_stream()
        try #require(deflateInit_(&stream, 9, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        func segment() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 1 << 16)
        zeros.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            stream.next_out = output.baseAddress
            stream.avail_out = UInt32(output.count)
            _ = deflate(&stream, Z_FULL_FLUSH)
            }
        }
        return Array(out.prefix(out.count - Int(stream.avail_out)))
        }
        let first = segment(), repeated = segment()  // the first carries the zlib header
        deflateEnd(&stream)
        var data = first
        data.reserveCapacity(first.count + repeated.count * 2000)
        for _ in 1..<2000 { data += repeated }
        func be(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        let chunk = ChildProcessRuns.HostileSourceTests.chunk
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        + chunk("IHDR", be(40_000) + be(25_000) + [16, 6, 0, 0, 0]) + chunk("IDAT", data) + chunk("IEND", [])
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
        let quantized = try ImageEncoder.quantize(rgb, size: size)
        let refused: [(String, [UInt8], PixelSize?)] = [
            ("PNG full size", try ImageEncoder.png(rgb, size: size, layout: .rgb), nil),
            ("progressive JPEG", try ImageEncoder.jpeg(rgb, size: size, channels: 3, progressive: true), Self.cell),
            ("lossless WebP", try ImageEncoder.webp(rgb, size: size, channels: 3, quality: nil), Self.cell),
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
    }

    /// A stop the test controls: asked `calls` times, it says stop from the `after`-th call on.
    final class CountingStop: Sendable {
        let calls = Atomic<Int>(0)
        let after: Int
        init(after: Int) { self.after = after }
        var stop: DecodeStop {
            DecodeStop { [self] in calls.add(1, ordering: .relaxed).newValue >= after ? .cancelled : nil }
        }
    }

    @Test("a decoder stopped after N of its checks returns stopped, having been asked no more: less than all rows done")
    func stoppedPartWay() throws {
        let size = PixelSize(width: 800, height: 1200)
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 4)
        let quantized = try ImageEncoder.quantize(rgb, size: size)
        let files: [(String, [UInt8], PixelSize?)] = [
            ("PNG to the cell", try ImageEncoder.png(rgb, size: size, layout: .rgb), Self.cell),
            ("PNG full size", try ImageEncoder.png(rgb, size: size, layout: .rgb), nil),
            ("baseline JPEG", try ImageEncoder.jpeg(rgb, size: size, channels: 3), Self.cell),
            ("progressive JPEG", try ImageEncoder.jpeg(rgb, size: size, channels: 3, progressive: true), Self.cell),
            ("GIF", try ImageEncoder.gif(frames: [quantized.indices], size: size, palette: quantized.palette), Self.cell),
            // Checked between 256 KB chunks of input: a lossless file is several.
            ("lossless WebP", try ImageEncoder.webp(rgb, size: size, channels: 3, quality: nil), Self.cell),
            // Checked before and after the frame (dav1d cannot stop inside one).
            ("AVIF", try ImageEncoder.avif(rgb, size: size, channels: 3, quantizer: 40, speed: 10), Self.cell),
        ]
        for (name, bytes, target) in files {
            // Unstopped: how often the decoder asks (rows, libjpeg's progress calls, input chunks).
            let counting = CountingStop(after: .max)
            _ = try ImageDecoder().decode(bytes, targetSize: target, limits: DecodeLimits(stop: counting.stop))
            let unstopped = counting.calls.load(ordering: .relaxed)
            #expect(unstopped >= (name.contains("WebP") || name == "AVIF" ? 2 : 40), "\(name) asked \(unstopped) times")
            let after = max(1, min(20, unstopped / 2))
            let stopping = CountingStop(after: after)
            #expect(throws: DecodeError.stopped(.cancelled), "\(name)") {
                try ImageDecoder().decode(bytes, targetSize: target, limits: DecodeLimits(stop: stopping.stop))
            }
            // The stop was asked once more to learn its reason, never again by the decoder.
            #expect(stopping.calls.load(ordering: .relaxed) == after + 1, "\(name)")
        }
    }

    @Test("a load's stop: cancelled by its token, or past its deadline; unset, never")
    func loadStop() {
        let token = LoadToken()
        _ = token.begin()
        #expect(DecodeStop(token: token, deadline: nil).reason == nil)
        #expect(DecodeStop(token: token, deadline: MonotonicClock.now() - 1).reason == .deadline)
        _ = token.cancel()
        #expect(DecodeStop(token: token, deadline: nil).reason == .cancelled)
        #expect(LoadFailure.decode(.stopped(.deadline)).errorClass == .timeout)
        // The stop is one load's: not part of a plan's limits, compared or coded.
        #expect(DecodeLimits(stop: DecodeStop(token: token, deadline: nil)) == DecodeLimits())
    }

    @Test("plans recorded before --max-decode-mb read with today's default; the limit round-trips")
    func coding() throws {
        let old = try JSONDecoder().decode(DecodeLimits.self, from: Data(#"{"maxPixels": 1000}"#.utf8))
        #expect(old == DecodeLimits(maxPixels: 1000, maxDecodeMegabytes: DecodeLimits.defaultMaxDecodeMegabytes))
        let limits = DecodeLimits(maxPixels: 7, maxDecodeMegabytes: 9)
        #expect(try JSONDecoder().decode(DecodeLimits.self, from: JSONEncoder().encode(limits)) == limits)
    }

    /// Hands the pipeline the same bytes for every URL, at once.
    struct BytesTransport: Transport {
        let bytes: [UInt8]
        var kind: TransportKind { .blocking }
        func fetch(_ url: String, expectedBytes: Int?, attempt: Int, token: LoadToken) throws(FetchError) -> FetchResult {
            FetchResult(bytes: bytes, timeToFirstByte: 0, transfer: 0)
        }
        func fetchAsync(_ url: String, expectedBytes: Int?, attempt: Int, token: LoadToken) async throws(FetchError) -> FetchResult {
            try fetch(url, expectedBytes: expectedBytes, attempt: attempt, token: token)
        }
        func shutdown() {}
    }

    /// The bomb through the pipeline under a 1 s `--timeout`: the outcome, and the load's time.
    static func loadBomb(cancelAfter: Double?) throws -> (outcome: LoadOutcome, seconds: Double, cancelled: Double?) {
        let pipeline = ImagePipeline(processor: ImageFilter.none, memoryCache: MemoryCache(costLimit: 1 << 24),
                                     decodeLimits: DecodeLimits(maxPixels: 1_000_000_000), timeoutMilliseconds: 1_000)
        let transport = BytesTransport(bytes: try pngBomb())
        let token = LoadToken()
        let start = MonotonicClock.now()
        let cancelled = Locked<UInt64?>(nil)
        if let cancelAfter {
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: cancelAfter)
                cancelled.withLockedValue { $0 = MonotonicClock.now() }
                _ = token.cancel()
            }
        }
        let step = pipeline.load(LoadRequest(url: "http://bomb/", expectedBytes: nil), id: 1, token: token,
                                 submittedAt: start, transport: transport)
        let end = MonotonicClock.now()
        let output = try #require(step?.output)
        let cancelledAt = cancelled.withLockedValue { $0 }
        return (output.completion.outcome, Double(end - start) / 1e9, cancelledAt.map { Double(end - min(end, $0)) / 1e9 })
    }

    @Test("a PNG bomb's load ends within --timeout + 0.5 s, a timeout; cancelled mid-decode, it ends cancelled at once")
    func bombThroughThePipeline() async throws {
        try await onOwnThread {
            let timedOut = try Self.loadBomb(cancelAfter: nil)
            print("bomb load with --timeout 1: ended after \(timedOut.seconds) s")
            guard case .failed(let failure) = timedOut.outcome else { Issue.record("\(timedOut.outcome)"); return }
            #expect(failure.errorClass == .timeout && failure == .decode(.stopped(.deadline)))
            // At the deadline, not before it; an 8 GB inflate unstopped takes tens of seconds.
            #expect(timedOut.seconds >= 1 && timedOut.seconds < 1.5, "\(timedOut.seconds) s")

            let cancelled = try Self.loadBomb(cancelAfter: 0.4)
            let late = try #require(cancelled.cancelled)
            print("bomb load cancelled at 0.4 s: ended \(late * 1000) ms after the cancel")
            guard case .cancelled = cancelled.outcome else { Issue.record("\(cancelled.outcome)"); return }
            // Within 100 ms on a quiet machine (a row is well under a millisecond); generous for a noisy one.
            #expect(late < 0.5 && cancelled.seconds < 0.95, "\(late) s after the cancel")
        }
    }
}
