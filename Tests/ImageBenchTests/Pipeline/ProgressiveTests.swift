import Foundation
import Testing
@testable import ImageBench

/// Collects what a previewer posts.
final class PreviewSink: Sendable {
    private let previews = Locked<[LoadPreview]>([])
    /// A copy made under the lock into storage of its own: ThreadSanitizer once reported the
    /// queue's later append racing the test's read of the array returned as it was (why the
    /// shared buffer was not copied on append is not established); no shared buffer, no such race.
    var all: [LoadPreview] { previews.withLockedValue { $0.map { $0 } } }
    func post(_ preview: LoadPreview) { previews.withLockedValue { $0.append(preview) } }
}

@Suite("Progressive JPEG display (--progressive)")
struct ProgressiveTests {
    static let corpus = ImageCorpus.generate(count: 40, seed: 1)

    /// The corpus's photos written progressive (a third of them), by their scan count.
    static func image(progressive: Bool) throws -> CorpusImage {
        try #require(corpus.images.first { image in
            guard image.format == .jpeg else { return false }
            let scans = image.bytes.withUnsafeBufferPointer(JPEGPreview.completeScans)
            return progressive ? scans > 1 : scans == 1
        })
    }

    /// Feeds `bytes` to a previewer `step` bytes at a time, as a transfer would, with no wait
    /// between refinements.
    static func previews(of bytes: [UInt8], step: Int = 100, offload: Bool = false) -> [LoadPreview] {
        let pipeline = ImagePipeline(processor: ImageFilter.none, memoryCache: MemoryCache())
        let sink = PreviewSink()
        let previewer = ProgressivePreviewer(loadID: 7, pipeline: pipeline, offload: offload, refinementInterval: 0) { sink.post($0) }
        for end in stride(from: step, through: bytes.count + step - 1, by: step) { previewer.bodyGrew(Array(bytes.prefix(end))) }
        // Offloaded previews arrive from a Dispatch queue: wait for the first.
        let deadline = Date().addingTimeInterval(30)
        while offload && sink.all.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return sink.all
    }

    @Test("offloaded (the multi transport's network thread must not decode), previews come from a queue, one at a time, in scan order")
    func offloaded() throws {
        let image = try Self.image(progressive: true)
        let previews = Self.previews(of: image.bytes, offload: true)
        let scans = image.bytes.withUnsafeBufferPointer(JPEGPreview.completeScans)
        #expect(!previews.isEmpty && previews.count < scans)
        #expect(previews.map(\.scan) == previews.map(\.scan).sorted() && previews.allSatisfy { $0.scan >= 1 && $0.scan < scans })
    }

    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(1, min(a.count, b.count)))
    }

    @Test("the first preview is a real partial decode: unlike the final image and the placeholder, closer to the image")
    func firstPreviewIsPartial() throws {
        let image = try Self.image(progressive: true)
        let previews = Self.previews(of: image.bytes)
        let first = try #require(previews.first)
        #expect(first.scan == 1 && first.loadID == 7, "\(previews.map(\.scan)), \(image.bytes.count) bytes")
        // Refinements follow, scan by scan, each a decode of its own; none once the file is whole.
        #expect(previews.count >= 3 && previews.map(\.scan) == previews.map(\.scan).sorted() && Set(previews.map(\.scan)).count == previews.count)
        #expect(previews.allSatisfy { $0.cost > 0 })
        let final = try JPEGDecoder().decode(image.bytes, targetSize: ImagePipeline.defaultTargetSize, limits: DecodeLimits())
        #expect(first.image.size == final.size)
        let placeholder = [UInt8](repeating: 128, count: final.pixels.count)
        let fromFinal = Self.meanDifference(first.image.pixels, final.pixels)
        let fromPlaceholder = Self.meanDifference(first.image.pixels, placeholder)
        #expect(fromFinal > 0.5, "the first scan is not the whole image (\(fromFinal))")
        #expect(fromPlaceholder > 10 && fromFinal < fromPlaceholder / 2, "final \(fromFinal), placeholder \(fromPlaceholder)")
        // Later scans come closer to the image.
        let last = try #require(previews.last)
        #expect(Self.meanDifference(last.image.pixels, final.pixels) < fromFinal)
    }

    @Test("a baseline JPEG, a PNG and a damaged progressive file get no preview")
    func noPreview() throws {
        #expect(Self.previews(of: try Self.image(progressive: false).bytes).isEmpty)
        let png = try #require(Self.corpus.images.first { $0.format == .png })
        #expect(Self.previews(of: png.bytes).isEmpty)
        // A Huffman table with a bogus index: the scans are still found, and each decode fails.
        var damaged = try Self.image(progressive: true).bytes
        let table = try #require(damaged.indices.dropLast().first { damaged[$0] == 0xFF && damaged[$0 + 1] == 0xC4 })
        damaged[table + 4] = 0x6F
        #expect(damaged.withUnsafeBufferPointer(JPEGPreview.completeScans) > 1)
        #expect(throws: DecodeError.self) {
            try damaged.withUnsafeBufferPointer { bytes throws(DecodeError) in
                try JPEGPreview.decode(bytes, target: ImagePipeline.defaultTargetSize, limits: DecodeLimits())
            }
        }
        #expect(Self.previews(of: damaged).isEmpty)
    }
}

@Suite("Progressive display in a run", .serialized)
struct ProgressiveRunTests {
    static func run(progressive: Bool) async throws -> RunResult {
        try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 200
            settings.scroll = .browse
            settings.network = try NetworkProfile(parsing: "latency=50ms,bandwidth=150KB/s")
            settings.settleSeconds = 2
            settings.progressive = progressive
            // The first 12 s of reading: rows come slowly enough for their images to arrive.
            return try Fixtures.withServedWorkload(settings, seconds: 12) { workload, _ in
                ScrollRun(workload: workload, settings: settings, cell: RunCell(strategy: .threads, concurrency: 4, repetition: 1)).run()
            }
        }
    }

    @Test("previews show before their images on a slow link, end the placeholder, and cost decodes; without --progressive none")
    func previewsInARun() async throws {
        let result = try await Self.run(progressive: true)
        let summary = result.summary
        let previewed = result.requests.filter { $0.previewFrame != nil }
        #expect(summary.previewsShown == previewed.count && previewed.count > 0, "\(summary.previewsShown)")
        #expect(summary.previewDecodes > 0 && summary.previewDecodeMs > 0)
        for request in previewed {
            let preview = try #require(request.previewFrame)
            if let display = request.displayFrame { #expect(preview < display, "request \(request.id)") }
            #expect(request.placeholder == UInt64(preview - request.visibleFrame) * UInt64(1_000_000_000 / 60), "request \(request.id)")
        }
        #expect(summary.firstImage.p50 <= summary.display.p50 && summary.firstImage.p95 <= summary.display.p95)
        let plain = try await Self.run(progressive: false).summary
        #expect(plain.previewsShown == 0 && plain.previewDecodes == 0)
        #expect(plain.firstImage.p50 == plain.display.p50 && plain.firstImage.p95 == plain.display.p95)
    }
}
