import CShims
import Foundation
import Synchronization
import Testing
@testable import ImageBench

/// Issue 28: a decode stops part-way when its load is cancelled or passes its deadline, however
/// much work its header or its compressed data promise.
@Suite("Decodes that stop")
struct DecodeStopTests {
    static let cell = ImagePipeline.defaultTargetSize

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

    @Test("a decode that could be stopped but is not gives the very pixels of one that cannot (WebP then decodes in chunks)")
    func stoppableSamePixels() throws {
        let size = PixelSize(width: 900, height: 700)
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 7)
        var rgba = [UInt8]()
        for i in 0..<size.pixelCount { rgba += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], UInt8(i % 211)] }
        let quantized = try ImageEncoder.quantize(rgb, size: size)
        let files: [(String, [UInt8])] = [
            ("lossy WebP", try ImageEncoder.webp(rgb, size: size, channels: 3, quality: 80)),
            ("lossy WebP with alpha", try ImageEncoder.webp(rgba, size: size, channels: 4, quality: 80)),
            ("lossless WebP", try ImageEncoder.webp(rgba, size: size, channels: 4, quality: nil)),
            ("PNG", try ImageEncoder.png(rgb, size: size, layout: .rgb)),
            ("progressive JPEG", try ImageEncoder.jpeg(rgb, size: size, channels: 3, progressive: true)),
            ("AVIF", try ImageEncoder.avif(rgba, size: size, channels: 4, quantizer: 30, speed: 10)),
            ("GIF", try ImageEncoder.gif(frames: [quantized.indices], size: size, palette: quantized.palette)),
        ]
        let never = DecodeLimits(stop: DecodeStop { nil })
        for (name, bytes) in files {
            for target in [Self.cell, nil] as [PixelSize?] {
                let plain = try ImageDecoder().decode(bytes, targetSize: target, limits: DecodeLimits())
                let stoppable = try ImageDecoder().decode(bytes, targetSize: target, limits: never)
                #expect(plain == stoppable, "\(name) to \(target.map(\.description) ?? "full size")")
            }
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
            #expect(timedOut.seconds >= 1 && timedOut.seconds < 1 + 0.5 * Fixtures.sanitizerSlack, "\(timedOut.seconds) s")

            let cancelled = try Self.loadBomb(cancelAfter: 0.4)
            let late = try #require(cancelled.cancelled)
            print("bomb load cancelled at 0.4 s: ended \(late * 1000) ms after the cancel")
            guard case .cancelled = cancelled.outcome else { Issue.record("\(cancelled.outcome)"); return }
            // Within 100 ms on a quiet machine (a row is well under a millisecond); generous for a noisy one.
            #expect(late < 0.5 * Fixtures.sanitizerSlack && cancelled.seconds < 0.45 + 0.5 * Fixtures.sanitizerSlack, "\(late) s after the cancel")
        }
    }
}
