import Foundation
import Testing
@testable import ImageBench

/// A transport that counts, per URL, how many fetches are running at once.
final class RecordingTransport: Transport, Sendable {
    let inner: any Transport
    private let state = Locked<(running: [String: Int], peak: [String: Int])>(([:], [:]))

    init(_ inner: any Transport) { self.inner = inner }

    var kind: TransportKind { inner.kind }
    var peakPerURL: [String: Int] { state.withLockedValue { $0.peak } }

    var blocksCaller: Bool { inner.blocksCaller }

    func start(_ request: FetchRequest, completion: @escaping FetchCompletion) {
        let url = request.url
        state.withLockedValue { s in
            s.running[url, default: 0] += 1
            s.peak[url] = max(s.peak[url] ?? 0, s.running[url]!)
        }
        inner.start(request) { [state] result in
            state.withLockedValue { $0.running[url]! -= 1 }
            completion(result)
        }
    }

    func shutdown() { inner.shutdown() }
}

@Suite("Caches, merging and policies end to end", .serialized)
struct CachePolicyTests {
    static func run(rows: Int, network: String = "loopback", strategy: StrategyKind = .threads,
                    _ configure: @escaping @Sendable (inout RunSettings) -> Void = { _ in }) async throws -> RunSummary {
        try await onOwnThread {
            var settings = RunSettings()
            settings.rows = rows
            settings.network = try NetworkProfile(parsing: network)
            settings.settleSeconds = 1
            configure(&settings)
            let results = try Benchmark.run(BenchmarkPlan(settings: settings, strategies: [strategy], concurrencies: [4]))
            return results.results[0].summary
        }
    }

    @Test("a second run on the same disk cache is served from disk, with at least 80% fewer network fetches")
    func warmDiskCache() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Without cancellation every image the trace asks for is downloaded in the first run, so
        // what the second run finds on disk does not depend on how fast this machine is today.
        let configure: @Sendable (inout RunSettings) -> Void = {
            $0.diskCacheDirectory = directory.path
            $0.cancelPolicy = .none
        }
        let first = try await Self.run(rows: 200, configure)
        let second = try await Self.run(rows: 200, configure)
        #expect(first.diskHits == 0 && first.diskWrites > 0)
        #expect(second.diskHits > 0)
        #expect(Double(second.networkFetches) <= 0.2 * Double(first.networkFetches))
        #expect(second.requests == second.memoryHits + second.diskHits + second.networkFetches + second.merged + second.errors)
        #expect(DiskCache.audit(directory: directory).invalid.isEmpty)
    }

    @Test("corrupted, truncated and deleted entries are discarded, counted and refetched; nothing corrupt is displayed; every strategy meets the same damage")
    func damagedDiskCache() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Self.run(rows: 150) {
            $0.diskCacheDirectory = directory.path
            $0.cancelPolicy = .none
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter(DiskCache.isEntryName).sorted()
        #expect(names.count > 12)
        var damaged = Set<String>()
        for (index, name) in names.enumerated() {
            let path = directory.appendingPathComponent(name).path
            var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
            switch index % 3 {
            case 0: bytes[bytes.count / 2] ^= 0xFF                                  // bit rot
            case 1: bytes.removeLast(bytes.count / 3)                               // torn write
            default: try FileManager.default.removeItem(atPath: path); continue     // deleted
            }
            damaged.insert(name)
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        }
        let damagedCount = damaged.count
        let (summary, requests) = try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 150
            settings.network = NetworkProfile.presets[0]
            settings.settleSeconds = 1
            settings.diskCacheDirectory = directory.path
            settings.cancelPolicy = .none
            let results = try Benchmark.run(BenchmarkPlan(settings: settings, strategies: [.threads, .gcd], concurrencies: [4]))
            // The second strategy starts from the same damaged cache, not from the first one's
            // re-downloads: it discards the same entries, or after late wakes (a CI run: 37
            // against 38) some of them, never none.
            let (first, second) = (results.results[0].summary, results.results[1].summary)
            #expect(Fixtures.countsEveryRow(second.diskDiscarded, exactly: first.diskDiscarded,
                                            lateWakes: first.hostLateFrames + second.hostLateFrames, ceiling: damagedCount),
                    "\(second.diskDiscarded) discarded, the first \(first.diskDiscarded), of \(damagedCount) damaged; late frames \(first.hostLateFrames), \(second.hostLateFrames)")
            return (results.results[0].summary, results.results[0].requests)
        }
        #expect(summary.diskDiscarded > 0)
        #expect(summary.errors == 0)
        #expect(summary.networkFetches > 0)  // the discarded and deleted images came from the server again
        // Every displayed image has the size its corpus image fills the cell with. (The corpus and
        // the fills are seconds of CPU in a debug build: on a thread of their own.)
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: Feed.defaultImageCount(rows: 150), seed: 1)
            for request in requests where request.outcome == .displayed {
                let source = corpus[request.imageID].size
                let expected = Downsampler.aspectFill(DecodedImage(size: source, pixels: [UInt8](repeating: 0, count: source.pixelCount * 4)),
                                                      to: ImagePipeline.defaultTargetSize).size
                #expect(request.displayedSize == expected, "request \(request.id) image \(request.imageID)")
            }
        }
        // Bad entries are found when read: what is still bad is what we damaged and the run did
        // not ask for again, never an entry the run wrote.
        #expect(Set(DiskCache.audit(directory: directory).invalid).isSubset(of: damaged))
    }

    @Test("with merging, no URL is ever fetched twice at once; without it, recurring images are fetched again")
    func coalescing() async throws {
        func run(coalesce: Bool) async throws -> (RunSummary, [String: Int]) {
            try await onOwnThread {
                var settings = RunSettings()
                settings.rows = 300
                settings.network = try NetworkProfile(parsing: "latency=150ms,jitter=30ms,bandwidth=1MB/s")
                settings.settleSeconds = 1
                settings.coalesce = coalesce
                // A small feed of images so rows showing the same one are on screen together.
                settings.imageCount = 40
                let corpus = ImageCorpus.generate(count: 40, seed: settings.seed)
                let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: settings.network, seed: settings.seed)
                defer { server.shutdown() }
                let workload = Benchmark.makeWorkload(settings: settings, corpus: corpus, baseURL: server.baseURL)
                let transport = RecordingTransport(BlockingTransport(limits: settings.fetchLimits))
                let run = ScrollRun(workload: workload, settings: settings,
                                    cell: RunCell(strategy: .threads, concurrency: 6, repetition: 1), transport: transport)
                return (run.run().summary, transport.peakPerURL)
            }
        }
        let (merged, mergedPeaks) = try await run(coalesce: true)
        let (separate, _) = try await run(coalesce: false)
        #expect(merged.merged > 0)
        #expect(!mergedPeaks.isEmpty)
        #expect(mergedPeaks.values.allSatisfy { $0 == 1 }, "\(mergedPeaks.filter { $0.value > 1 })")
        #expect(separate.merged == 0)
        #expect(separate.networkFetches > merged.networkFetches)
    }

    @Test("suspend-while-dragging starts no load while the content moves")
    func suspendWhileDragging() async throws {
        // Every frame drawn, the test watching how many loads the main loop started in each.
        let (suspended, startedMoving, startedStill) = try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 400
            settings.network = try NetworkProfile(parsing: "latency=30ms")
            settings.settleSeconds = 1
            settings.cancelPolicy = .suspendWhileDragging
            var (moving, still) = ([Int](), [Int]())
            let result = try steppedRun(settings) { run, frame, step in
                let (moves, before) = (run.moves(inFrame: frame), run.registry.nextID)
                let going = step()
                for _ in before..<run.registry.nextID { moves ? moving.append(frame) : still.append(frame) }
                return going
            }
            return (result.summary, moving, still)
        }
        let offscreen = try await Self.run(rows: 400, network: "latency=30ms") { $0.cancelPolicy = .offscreen }
        // One entry per load started, naming its frame.
        #expect(startedMoving.isEmpty, "loads started in moving frames \(startedMoving.prefix(20))")
        // Not vacuous: loads did start, in the frames where the trace stood still (at least the
        // first screen's rows, and the rows on screen where the trace comes to rest).
        #expect(Set(startedStill).count >= 2 && startedStill.count >= 10, "loads started in still frames \(startedStill)")
        #expect(suspended.requests == suspended.memoryHits + suspended.diskHits + suspended.networkFetches + suspended.merged + suspended.errors)
        // Flings leave the rows they pass as placeholders: far fewer images are fetched and shown.
        #expect(suspended.bytesDownloaded < offscreen.bytesDownloaded)
        #expect(suspended.displayed < offscreen.displayed)
        #expect(suspended.displayed > 0)  // the stops in the trace load what is on screen
    }

    @Test("prefetching loads rows ahead, so fewer rows wait for their image when they appear")
    func prefetch() async throws {
        // Both runs draw every frame of the same trace, so they see the same rows appear.
        func run(prefetch: Int) async throws -> RunResult {
            try await onOwnThread {
                var settings = RunSettings()
                settings.rows = 300
                settings.network = try NetworkProfile(parsing: "latency=60ms")
                settings.settleSeconds = 1
                settings.prefetch = prefetch
                return try steppedRun(settings)
            }
        }
        let plain = try await run(prefetch: 0), ahead = try await run(prefetch: 10)
        // A row waited when its image was not on screen in the frame it appeared in.
        func waited(_ result: RunResult) -> Int { result.requests.count { $0.displayFrame != $0.visibleFrame } }
        let report = "rows that waited: \(waited(plain)) of \(plain.requests.count) without prefetch, "
            + "\(waited(ahead)) of \(ahead.requests.count) with; placeholder ratio \(plain.summary.placeholderRatio) vs \(ahead.summary.placeholderRatio)"
        print("prefetch: \(report)")
        #expect(plain.summary.prefetchLoads == 0)
        #expect(ahead.summary.prefetchLoads > 0)
        #expect(ahead.summary.prefetchCancelled > 0)  // a fling outruns its prefetches
        #expect(plain.requests.map(\.row) == ahead.requests.map(\.row), "the same rows appear, in the same order")
        #expect(waited(ahead) < waited(plain), "\(report)")
        #expect(ahead.summary.placeholderRatio < plain.summary.placeholderRatio, "\(report)")
    }
}

extension ChildProcessRuns {
    @Suite("Disk cache survives a killed process")
    struct KilledProcessTests {
        @Test("SIGKILL while entries are being written leaves a cache with no bad entry, which the next run uses")
        func sigkill() async throws {
            let directory = try Fixtures.temporaryDirectory()
            let output = try Fixtures.temporaryDirectory("out")
            defer {
                try? FileManager.default.removeItem(at: directory)
                try? FileManager.default.removeItem(at: output)
            }
            try #require(FileManager.default.isExecutableFile(atPath: Fixtures.executable.path), "no imgbench at \(Fixtures.executable.path)")
            let process = Process()
            process.executableURL = Fixtures.executable
            // Few distinct images keep corpus generation short; many rows keep the run going; no
            // cancellation, so entries keep being written even when a loaded machine is slow.
            process.arguments = ["--rows", "3000", "--images", "150", "--strategies", "threads", "--network", "lte", "--quiet",
                                 "--cancel", "none", "--warmup-seconds", "0",
                                 "--disk-cache", directory.path, "--out", output.appendingPathComponent("results").path]
            let log = output.appendingPathComponent("stderr.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: log)
            try process.run()
            // Wait until the run is writing entries (into its run directory), then kill it mid-stream.
            func written() -> Int {
                let runs = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix(".imgbench-run-") }
                return runs.reduce(0) { total, run in
                    total + (((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(run).path)) ?? [])
                        .filter(DiskCache.isEntryName).count)
                }
            }
            var waited = 0
            while written() < 30 && waited < 1200 && process.isRunning {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            if !process.isRunning {
                let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                Issue.record("the run ended (status \(process.terminationStatus)) before it could be killed, \(written()) entries written: \(stderr)")
                return
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            // Reopening keeps the dead run's whole entries and drops its half-written files.
            let workspace = try DiskCacheWorkspace(directory: directory)
            let audit = DiskCache.audit(directory: workspace.directory)
            #expect(audit.invalid.isEmpty)
            #expect(audit.valid >= 30)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasPrefix(".imgbench-tmp-") || $0.hasPrefix(".imgbench-run-") }
            #expect(leftovers.isEmpty, "\(leftovers)")
            let next = try await CachePolicyTests.run(rows: 200) { $0.diskCacheDirectory = directory.path }
            #expect(next.diskHits > 0)
            #expect(next.diskDiscarded == 0)
        }
    }
}
