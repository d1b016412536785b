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
        #expect(DecodeStop(token: token, deadline: MonotonicClock().now() - 1).reason == .deadline)
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
        var blocksCaller: Bool { true }
        func start(_ request: FetchRequest, completion: @escaping FetchCompletion) {
            completion(.success(FetchResult(bytes: bytes, timeToFirstByte: 0, transfer: 0)))
        }
        func shutdown() {}
    }

    /// CPU seconds a thread has run, by its CPU-time clock.
    static func cpuSeconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The bomb through the pipeline under a 1 s `--timeout`, decoded on this thread: the outcome,
    /// the load's wall time, and the CPU seconds this thread decoded on after the stop (the
    /// deadline passing, or the cancel). CPU, not wall time, measures how soon the decode stopped:
    /// a busy host stretches the wall time of the same work. `cancelAfterCPU`: cancel once the
    /// decode has run that long (mid-decode, whatever the host's load); nil: let the deadline end it.
    static func loadBomb(cancelAfterCPU: Double?) throws -> (outcome: LoadOutcome, seconds: Double, cpuAfterStop: Double) {
        // Cancelled: a deadline far off, so a busy host that gives the decode under 0.3 CPU-s in a
        // second cannot end it before the cancel comes.
        let pipeline = ImagePipeline(processor: ImageFilter.none, memoryCache: MemoryCache(costLimit: 1 << 24),
                                     decodeLimits: DecodeLimits(maxPixels: 1_000_000_000),
                                     timeoutMilliseconds: cancelAfterCPU == nil ? 1_000 : 120_000)
        let transport = BytesTransport(bytes: try pngBomb())
        let token = LoadToken()
        var clock = clockid_t()
        try #require(pthread_getcpuclockid(pthread_self(), &clock) == 0)
        // The clock counts the thread's whole life: the decode's CPU is what it gains from here.
        let (loader, start, base) = (clock, MonotonicClock().now(), cpuSeconds(clock))
        let stoppedAt = Locked<Double?>(nil)  // this thread's CPU seconds when the stop came
        // The load starts only once the watcher runs: a watcher thread the host started late
        // would find the deadline passed and leave no sample at all.
        let watching = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            watching.signal()
            if let cancelAfterCPU {
                // Never reached (the decode is not on the loading thread, or ended first): no stop
                // is recorded, and the test fails rather than measure nothing.
                guard waitUntil(every: 0.005, { cpuSeconds(loader) - base >= cancelAfterCPU }) else { return }
                stoppedAt.withLockedValue { $0 = cpuSeconds(loader) }
                _ = token.cancel()
            } else {
                // The decode stops itself at the deadline, maybe before this thread looks: keep the
                // last sample taken before it (an overestimate of the CPU past it, by one interval).
                stoppedAt.withLockedValue { $0 = cpuSeconds(loader) }
                waitUntil(every: 0.002) {
                    guard MonotonicClock().now() < start + 1_000_000_000 else { return true }
                    stoppedAt.withLockedValue { $0 = cpuSeconds(loader) }
                    return false
                }
            }
        }
        watching.wait()
        let step = pipeline.load(LoadRequest(url: "http://bomb/", expectedBytes: nil), id: 1, token: token,
                                 submittedAt: start, transport: transport)
        let (end, cpuEnd) = (MonotonicClock().now(), cpuSeconds(loader))
        let output = try #require(step?.output)
        // The watcher records the stop before it cancels; a load that ended first has none.
        let stop = try #require(stoppedAt.withLockedValue { $0 }, "the load ended before its stop")
        return (output.completion.outcome, Double(end - start) / 1e9, max(0, cpuEnd - stop))
    }

    @Test("a PNG bomb's load ends at --timeout, a timeout, decoding under 0.5 CPU-s past it; cancelled mid-decode, it ends cancelled within 0.5 CPU-s")
    func bombThroughThePipeline() async throws {
        try await onOwnThread {
            let timedOut = try Self.loadBomb(cancelAfterCPU: nil)
            print("bomb load with --timeout 1: ended after \(timedOut.seconds) s, \(timedOut.cpuAfterStop) CPU-s past the deadline")
            guard case .failed(let failure) = timedOut.outcome else { Issue.record("\(timedOut.outcome)"); return }
            #expect(failure.errorClass == .timeout && failure == .decode(.stopped(.deadline)))
            // At the deadline, not before it (a lower bound a busy host cannot break); stopped soon
            // after it: an 8 GB inflate unstopped decodes for tens of CPU-seconds.
            #expect(timedOut.seconds >= 1, "\(timedOut.seconds) s")
            #expect(timedOut.cpuAfterStop < 0.5 * Fixtures.sanitizerSlack, "\(timedOut.cpuAfterStop) CPU-s past the deadline")

            let cancelled = try Self.loadBomb(cancelAfterCPU: 0.3)
            print("bomb load cancelled after 0.3 CPU-s of decoding: \(cancelled.cpuAfterStop) CPU-s after the cancel")
            guard case .cancelled = cancelled.outcome else { Issue.record("\(cancelled.outcome)"); return }
            // Well under a millisecond a row: a stopped decode ends within a few rows' work.
            #expect(cancelled.cpuAfterStop < 0.5 * Fixtures.sanitizerSlack, "\(cancelled.cpuAfterStop) CPU-s after the cancel")
        }
    }
}
