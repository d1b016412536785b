import Foundation
import Testing
@testable import ImageBench

/// Hears which cells played, for checking that warm-ups run and are not counted.
final class PlayedCells: BenchmarkObserver, Sendable {
    let progress = Locked<[RunCell]>([])
    let finished = Locked<[RunCell]>([])

    func preparing(_ message: String) {}
    func corpusProgress(done: Int, total: Int) {}
    func runStarted(_ cell: RunCell, index: Int, of total: Int) {}
    func runProgress(_ cell: RunCell, _ progress: RunProgress) {
        self.progress.withLockedValue { if $0.last != cell { $0.append(cell) } }
    }
    func runFinished(_ result: RunResult) { finished.withLockedValue { $0.append(result.cell) } }
}

@Suite("The warm-up before each run")
struct WarmUpTests {
    @Test("each measured run follows a short warm-up of its own cell, which is not counted and leaves no traffic in it")
    func warmUpBeforeEachRun() async throws {
        let played = PlayedCells()
        let results = try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 300
            settings.imageCount = 60
            settings.network = try NetworkProfile(parsing: "loopback")
            // Every load of a measured run completes (none cancelled, time to settle), so what the
            // server saw in its time is exactly the run's own requests, however slow the machine
            // (a transfer cancelled at the end may or may not have reached the server).
            settings.cancelPolicy = .none
            settings.settleSeconds = 30
            let plan = BenchmarkPlan(settings: settings, strategies: [.threads, .gcd], concurrencies: [3], repeats: 2,
                                     warmupSeconds: 1)
            return try Benchmark.run(plan, observer: played)
        }
        #expect(results.results.map(\.cell.repetition) == [1, 1, 2, 2])
        // Progress saw each warm-up (repetition 0) just before the run of the same cell.
        let order = played.progress.withLockedValue { $0 }
        let expected = [(StrategyKind.threads, 1), (.gcd, 1), (.threads, 2), (.gcd, 2)].flatMap { strategy, repetition in
            [RunCell(strategy: strategy, concurrency: 3, repetition: 0), RunCell(strategy: strategy, concurrency: 3, repetition: repetition)]
        }
        #expect(order == expected, "\(order)")
        #expect(played.finished.withLockedValue { $0 } == results.results.map(\.cell))
        for result in results.results {
            // The warm-up's loads were finished before the run began: none of them reached the
            // server in the run's time.
            #expect(result.server?.requests == result.summary.httpRequests, "\(result.cell)")
            // The whole trace was measured, not the warm-up's second: the run lasted the trace, and
            // on a machine that kept up it asked for every row (a starved one skips the rows of the
            // frames it drops: 289 of 300 once under ThreadSanitizer beside other suites).
            #expect(result.summary.durationS >= results.traceSeconds, "\(result.cell): \(result.summary.durationS) s")
            if result.summary.droppedFrames == 0 && result.summary.hostLateFrames == 0 {
                #expect(result.summary.requests >= 300, "\(result.cell)")
            }
        }
    }

    @Test("a prefix of the workload keeps the feed and cuts the trace")
    func prefix() {
        let viewport = Viewport(rowCount: 500)
        let trace = ScrollTrace.generate(profile: .fling, viewport: viewport, fps: 60, seed: 1)
        let workload = Workload(feed: Feed(rows: 500, imageCount: 50, seed: 1),
                                images: (0..<50).map { ImageReference(url: "http://x/\($0)", expectedBytes: nil, sourcePixels: nil) },
                                viewport: viewport, trace: trace)
        let short = workload.prefix(frames: 60)
        #expect(short.trace.frames == Array(trace.frames.prefix(60)) && short.feed.imageForRow == workload.feed.imageForRow)
        #expect(workload.prefix(frames: nil).trace == trace && workload.prefix(frames: 1_000_000).trace == trace)
    }
}
