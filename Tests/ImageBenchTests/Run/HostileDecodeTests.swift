import CShims
import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Issue 28 through the binary: huge headers over small files must not cost memory in
    /// proportion to the header (done-means 2), and a decompression bomb must not outlive
    /// `--timeout` or a SIGTERM (done-means 3).
    @Suite("Hostile decodes: memory and time", .serialized)
    struct HostileDecodeTests {
        static let side = PixelSize(width: 7000, height: 7000)

        /// A 7000 × 7000 image of one flat colour in `format`: a small file (flat content also keeps
        /// the encoders fast) whose full-size RGBA would be 196 MB.
        static func big(_ format: String) throws -> [UInt8] {
            let rgb = [UInt8](repeating: 150, count: side.pixelCount * 3)
            switch format {
            case "png": return try ImageEncoder.png(rgb, size: side, layout: .rgb)
            case "lossy.webp": return try ImageEncoder.webp(rgb, size: side, channels: 3, quality: 75)
            case "lossless.webp": return try ImageEncoder.webp(rgb, size: side, channels: 3, quality: nil)
            case "avif": return try ImageEncoder.avif(rgb, size: side, channels: 3, quantizer: 50, speed: 10)
            default: return try ImageEncoder.jpeg(rgb, size: side, channels: 3, quality: 80, progressive: true)
            }
        }

        static func small() throws -> [UInt8] {
            let size = PixelSize(width: 64, height: 64)
            return try ImageEncoder.png(PhotoSynthesizer.rgb(size: size, seed: 1), size: size, layout: .rgb)
        }

        /// `files` under nginx, a manifest of `copies` URLs for each (distinct URLs, so no merging
        /// and no cache hit: `--concurrency` decodes at once), and `body` with the manifest's path.
        static func serving<T>(_ files: [String: [UInt8]], copies: Int,
                               _ body: (_ manifest: String, _ root: URL, _ urls: [String: [String]]) throws -> T) throws -> T {
            let root = try Fixtures.temporaryDirectory("hostile-decodes")
            defer { try? FileManager.default.removeItem(at: root) }
            let www = root.appendingPathComponent("www")
            try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
            for (name, bytes) in files { try Data(bytes).write(to: www.appendingPathComponent(name)) }
            let nginx = try Nginx(root: www, accessLog: root.appendingPathComponent("access.log"))
            defer { nginx.stop() }
            var urls: [String: [String]] = [:]
            for name in files.keys.sorted() { urls[name] = (0..<copies).map { "\(nginx.baseURL)/\(name)?copy=\($0)" } }
            let manifest = root.appendingPathComponent("manifest.json")
            try JSONSerialization.data(withJSONObject: files.keys.sorted().flatMap { urls[$0]! }).write(to: manifest)
            return try body(manifest.path, root, urls)
        }

        static func requests(_ out: URL) throws -> [[String: String]] {
            let rows = CSVTable.parse(try String(contentsOf: out.appendingPathComponent("requests.csv"), encoding: .utf8))
            let header = try #require(rows.first)
            return rows.dropFirst().filter { $0.count == header.count }.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        }

        @Test("a 7000 × 7000 image five at a time stays under 150 MB peak RSS, decoded or too_large, in every format",
              arguments: [("png", "decoded"), ("lossy.webp", "decoded"), ("lossless.webp", "too_large"),
                          ("avif", "too_large"), ("progressive.jpg", "too_large")])
        func bigImagesAtConcurrencyFive(format: String, expected: String) async throws {
            try await onOwnThread {
                let name = "big.\(format)"
                // A small image beside it: a run in which nothing loads at all fails (exit 2).
                try Self.serving([name: try Self.big(format), "good.png": try Self.small()], copies: 5) { manifest, root, urls in
                    let out = root.appendingPathComponent("results")
                    // A run ends 3 s after its trace. Five full decodes of 49 million pixels take
                    // seconds of CPU, and beside the in-process suites none had ended by then (a
                    // CI run: 0 of 10 loads in 4.3 s), so those formats get a longer fling (1,000
                    // rows, about 7 s), whose later rows are memory hits and merges. Refusals end
                    // at the header.
                    let rows = expected == "decoded" ? "1000" : "150"
                    let run = try Fixtures.imgbench(["--source", manifest, "--rows", rows, "--concurrency", "5",
                                                     "--strategies", "threads", "--cancel", "none", "--out", out.path])
                    #expect(run.status == 0, "\(run.output)")
                    let summary = try ResultsDirectory(path: out.path).runs[0]
                    let peak = try #require(summary.value("peak_rss_mb"))
                    print("\(format): peak RSS \(peak) MB")
                    #expect(peak < 150, "\(format): peak RSS \(peak) MB")
                    let big = Set(urls[name]!)
                    let mine = try Self.requests(out).filter { big.contains($0["url"] ?? "") }
                    // How each load of it ended: refused (its error class), or decoded (shown, or done
                    // for a row that had scrolled away: a 7000² decode outlasts a fling's rows).
                    let fates = mine.compactMap { request -> String? in
                        if let error = request["error_class"], !error.isEmpty { return error }
                        return (request["decode_ms"] ?? "").isEmpty ? nil : "decoded"
                    }
                    #expect(fates.count >= 3, "\(format): \(fates.count) loads ended")
                    #expect(fates.allSatisfy { $0 == expected }, "\(format): \(fates) \(mine.compactMap { $0["error"] }.first { !$0.isEmpty } ?? "")")
                }
            }
        }

        @Test("a run fed a PNG bomb under --timeout 2 completes, each bomb load a timeout of its decode")
        func bombTimesOut() async throws {
            try await onOwnThread {
                // A good image beside it: a run in which nothing loads at all fails (exit 2).
                try Self.serving(["bomb.png": try DecodeStopTests.pngBomb(), "good.png": try Self.small()], copies: 3) { manifest, root, urls in
                    let out = root.appendingPathComponent("results")
                    let run = try Fixtures.imgbench(["--source", manifest, "--rows", "20", "--concurrency", "2",
                                                     "--strategies", "threads", "--cancel", "none", "--timeout", "2",
                                                     "--max-pixels", "1000000000", "--out", out.path])
                    #expect(run.status == 0, "\(run.output)")
                    let bombs = Set(urls["bomb.png"]!)
                    let loads = try Self.requests(out).filter { bombs.contains($0["url"] ?? "") && !($0["error_class"] ?? "").isEmpty }
                    try #require(!loads.isEmpty, "no bomb load ended")
                    // Each ended by its deadline (its time is checked in-process: DecodeBoundsTests), the
                    // run going on to its end.
                    for load in loads {
                        #expect(load["error_class"] == "timeout" && load["error"] == "decode stopped: the load ran past --timeout",
                                "\(load["error"] ?? "")")
                    }
                }
            }
        }

        @Test("SIGTERM while a PNG bomb decodes stops the decode: exit 143, under a CPU-second spent after the signal")
        func bombStopsOnSIGTERM() async throws {
            try await onOwnThread {
                try Self.serving(["bomb.png": try DecodeStopTests.pngBomb()], copies: 3) { manifest, root, _ in
                    let out = root.appendingPathComponent("results")
                    let run = try BackgroundRun(["--source", manifest, "--rows", "2000", "--concurrency", "2",
                                                 "--strategies", "threads", "--cancel", "none", "--timeout", "600",
                                                 "--max-pixels", "1000000000", "--out", out.path],
                                                log: root.appendingPathComponent("stderr.log"))
                    // Both workers (--concurrency 2, --cancel none, --timeout 600) have their 8 MB
                    // body once nginx has answered twice: from then on they decode.
                    let log = root.appendingPathComponent("access.log")
                    try #require(run.waitUntilScrolling { answeredRequests(in: log, containing: "bomb.png") >= 2 }, "\(run.output)")
                    let served = try #require(run.cpuSeconds)
                    // A decode in progress burns CPU (scrolling alone takes a few percent of a core).
                    try #require(waitUntil { (run.cpuSeconds ?? 0) - served >= 0.3 || !run.process.isRunning }, "no CPU used: no decode")
                    let (atSignal, endedBefore) = (try #require(run.cpuSeconds), endedChildrenCPUSeconds())
                    kill(run.process.processIdentifier, SIGTERM)
                    let exited = waitUntil(deadline: 60) { !run.process.isRunning }
                    if !exited { run.process.terminate() }
                    run.process.waitUntilExit()
                    #expect(run.process.terminationStatus == 143, "\(run.output)")
                    // Stopped, not finished: the CPU the process used after the signal, not wall time
                    // (which a busy host stretches). Unstopped, the 8 GB inflate burns tens of CPU-s.
                    let after = endedChildrenCPUSeconds() - endedBefore - atSignal
                    print("SIGTERM during a bomb's decode: \(after) CPU-s after the signal")
                    #expect(exited && after < Fixtures.sanitizerSlack, "\(after) CPU-s after the signal")
                }
            }
        }
    }
}
