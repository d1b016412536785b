import Foundation
@testable import ImageBench

extension ScrollRun {
    /// Runs the whole trace as `run()` does (each frame woken at its vsync, loads on real workers)
    /// except that the test owns the frame clock: a frame the host woke late for, or whose work
    /// overran, is still followed by the very next frame. Every frame of the trace is drawn, so
    /// what the trace decides (which rows appear in which frame, whether the content moves) does
    /// not depend on how busy a shared machine is. `around` runs each frame's `step` (so a test
    /// can look at the loop's state on either side of it) and returns what it returned.
    func runEveryFrame(_ around: (_ frame: Int, _ step: () -> Bool) -> Bool = { _, step in step() }) -> RunResult {
        begin(at: MonotonicClock().now() + frameNanoseconds)
        while true {
            MonotonicClock().sleep(until: nextVsync)
            let frame = loop.frame
            // Woken late: this frame's vsync is now. The loop then never finds itself a frame
            // behind and never skips the frames it slept through.
            let now = MonotonicClock().now()
            if now > nextVsync + frameNanoseconds / 4 { loop.start = now - UInt64(frame) * frameNanoseconds }
            guard around(frame, { step() }) else { break }
            loop.frame = frame + 1  // a frame whose work overran is not followed by a skip either
        }
        return finish()
    }

    /// Whether the content moves in `frame` as the loop decides it: the finger is down, or the
    /// offset differs from the last frame drawn. Call before stepping `frame`.
    func moves(inFrame frame: Int) -> Bool {
        let trace = workload.trace.frames
        let position = trace[min(frame - loop.sessionStart, trace.count - 1)]
        return position.dragging || position.offset != loop.lastOffset
    }
}

/// A run of `settings` on the embedded server, one cell, every frame drawn (`runEveryFrame`).
func steppedRun(_ settings: RunSettings, strategy: StrategyKind = .threads, concurrency: Int = 4,
                _ around: ((ScrollRun, Int, () -> Bool) -> Bool)? = nil) throws -> RunResult {
    let corpus = ImageCorpus.generate(count: settings.resolvedImageCount, seed: settings.seed)
    let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: settings.network, seed: settings.seed)
    defer { server.shutdown() }
    let workload = Benchmark.makeWorkload(settings: settings, corpus: corpus, baseURL: server.baseURL)
    let run = ScrollRun(workload: workload, settings: settings,
                        cell: RunCell(strategy: strategy, concurrency: concurrency, repetition: 1))
    return run.runEveryFrame { frame, step in around.map { $0(run, frame, step) } ?? step() }
}
