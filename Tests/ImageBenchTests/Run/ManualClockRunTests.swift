import Foundation
import Testing
@testable import ImageBench

/// The run loop, the registry, the policies, the caches and a strategy on a clock the test moves:
/// what a replayed or virtual-time run is built on (the clock seam).
@Suite("A whole run on a manual clock")
struct ManualClockRunTests {
    /// Columns the host measures whatever the clock: the process's CPU and memory.
    static let hostColumns: Set<String> = ["cpu_user_s", "cpu_sys_s", "peak_rss_mb", "cpu_ms_per_image"]

    /// One run of the default fling over 300 rows (2 s), with the events strategy ×4 and no decode
    /// (so every load's work runs on the loop's thread when the transport answers), each request
    /// answered `latencyFrames` frames after it came in: its summary, metric by metric.
    static func run(latencyFrames: UInt64 = 3) -> (values: [String: RunSummary.Value], requests: Int, cancelled: Int) {
        var settings = RunSettings()
        (settings.rows, settings.decodes, settings.transport) = (300, false, .multi)
        let corpus = ImageCorpus.generate(count: settings.resolvedImageCount, seed: settings.seed)
        let baseURL = "http://manual.invalid"
        let workload = Benchmark.makeWorkload(settings: settings, corpus: corpus, baseURL: baseURL)
        let bodies = Dictionary(corpus.images.map { ("\(baseURL)/\($0.path)", $0.bytes) }, uniquingKeysWith: { first, _ in first })
        let clock = ManualClock()
        let transport = HeldTransport(bodies: bodies, clock: clock)
        let frame = UInt64(1_000_000_000 / settings.fps)
        clock.onAdvance { now in transport.answer(startedBefore: now - min(now, latencyFrames * frame - frame / 2)) }
        let run = ScrollRun(workload: workload, settings: settings, cell: RunCell(strategy: .events, concurrency: 4, repetition: 1),
                            transport: transport, clock: clock)
        let summary = run.run().summary
        let values = Dictionary(summary.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let counts = transport.counts.withLockedValue { $0 }
        return (values, counts.answered + counts.cancelled, counts.cancelled)
    }

    @Test("two runs on a manual clock, with a transport that answers when the test says, give the same summary to the byte")
    func sameSummaryTwice() {
        let first = Self.run(), second = Self.run()
        let differing = Set(first.values.keys.filter { first.values[$0] != second.values[$0] })
        #expect(differing.isSubset(of: Self.hostColumns), "\(differing.sorted())")
        let clockColumns = first.values.filter { !Self.hostColumns.contains($0.key) }
        #expect(clockColumns.count > 50)
        #expect(clockColumns == second.values.filter { !Self.hostColumns.contains($0.key) })
        // A real run: loads went out, some were cancelled as their rows left, images were shown.
        #expect(first.requests > 20 && first.cancelled > 0, "\(first.requests) requests, \(first.cancelled) cancelled")
        #expect(first.values["requests"] == .integer(300) && first.values["displayed"] != .integer(0))
        // No host in the loop: no frame woke late, none was dropped, and every request took the
        // 3 frames the transport held it (50 ms at 60 fps, to the clock's nanosecond).
        #expect(first.values["host_late_frames"] == .integer(0) && first.values["dropped_frames"] == .integer(0))
        #expect(first.values["request_p50_ms"] == .real(49.999) && first.values["request_max_ms"] == .real(50.015),
                "\(String(describing: first.values["request_p50_ms"])) \(String(describing: first.values["request_max_ms"]))")
    }
}
