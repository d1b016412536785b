import Foundation
import Testing
@testable import ImageBench

/// The whole test's progress, driven on a manual clock: the events a `--clients 10 --duration
/// 10s` test gives (a warm-up before each cell, ten users reporting from their threads), and
/// the lines the terminal would redraw, read back without depending on the machine's speed.
@Suite("Progress of the whole test")
struct TestProgressTests {
    /// Lines as written: redrawn ones (in place) and final ones (ending in a newline).
    final class Lines: Sendable {
        let text = Locked("")
        func write(_ chunk: String) { text.withLockedValue { $0 += chunk } }
        /// Every line shown, in order; `final`: it ended with a newline.
        var shown: [(line: String, final: Bool)] {
            text.withLockedValue { $0 }.components(separatedBy: "\r\u{1B}[K").filter { !$0.isEmpty }
                .map { (String($0.trimmingCharacters(in: .newlines)), $0.hasSuffix("\n")) }
        }
    }

    static func percent(_ line: String) -> Int? {
        guard let match = line.firstMatch(of: /\] (\d+)%/) else { return nil }
        return Int(match.1)
    }

    static func requests(_ line: String) -> Int? { line.firstMatch(of: /requests (\d+)/).flatMap { Int($0.1) } }

    /// `--clients 10 --duration 10s --warmup-seconds 5` over `strategies`, on a 3-second trace.
    static func plan(strategies: [StrategyKind], warmup: Double) -> BenchmarkPlan {
        var settings = RunSettings()
        settings.clients = 10
        settings.load = .duration(seconds: 10)
        return BenchmarkPlan(settings: settings, strategies: strategies, concurrencies: [5], warmupSeconds: warmup)
    }

    /// Plays one phase (a warm-up or a run) of `frames` frames at 60 fps: ten users report their
    /// own counts every 250 ms from the crowd's clock, as their threads would.
    static func play(_ cell: RunCell, frames: Int, clock: ManualClock, observer: TerminalProgress, userRequests: Int) {
        let frameNanoseconds: UInt64 = 16_666_667
        let origin = clock.now()
        let crowd = CrowdProgress(users: 10, origin: origin, frameNanoseconds: frameNanoseconds, expectedFrames: frames,
                                  clock: clock) { observer.runProgress(cell, $0) }
        for user in 0..<10 { crowd.began(user, traceFrames: 180) }
        var frame = 0
        while frame < frames {
            frame = min(frames, frame + 15)
            clock.sleep(until: origin + UInt64(frame) * frameNanoseconds)
            for user in 0..<10 {
                let made = userRequests * frame / frames
                crowd.update(user, RunProgress(frame: frame, traceFrames: 180, rowsVisited: 0, requests: made, displayed: 0, inFlight: 2))
            }
        }
        for user in 0..<10 { crowd.ended(user, requests: userRequests) }
        crowd.finish()
    }

    static func result(_ cell: RunCell, requests: Int) -> RunResult {
        var summary = RunSummary()
        summary.requests = requests
        return RunResult(cell: cell, summary: summary, requests: [], distributions: RunDistributions())
    }

    @Test("--clients 10 --duration 10s: every user's requests, the matrix's time, and 100% only on the last line")
    func wholeTest() throws {
        let clock = ManualClock(start: 5_000_000_000)
        let lines = Lines()
        let observer = TerminalProgress(interactive: true, clock: clock) { lines.write($0) }
        let plan = Self.plan(strategies: [.threads, .gcd, .operationQueue], warmup: 5)
        // A 3-second trace: each warm-up plays it all (5 s asked, 3 s there), each run lasts 10 s.
        observer.testPlanned(TestEstimate(plan: plan, traceSeconds: 3))
        let cells = plan.cells
        for (index, cell) in cells.enumerated() {
            observer.runStarted(cell, index: index, of: cells.count)
            let warm = RunCell(strategy: cell.strategy, concurrency: cell.concurrency, repetition: 0)
            Self.play(warm, frames: 180, clock: clock, observer: observer, userRequests: 50)
            Self.play(cell, frames: 600, clock: clock, observer: observer, userRequests: 1_300)
            observer.runFinished(Self.result(cell, requests: 13_000))
        }
        observer.testEnded(stoppedBy: nil)

        let shown = lines.shown
        let redrawn = shown.filter { !$0.final }.map(\.line)
        let percents = redrawn.compactMap(Self.percent)
        try #require(percents.count > 100, "\(redrawn.prefix(5))")
        #expect(percents.allSatisfy { $0 < 100 }, "100% before the end: \(redrawn.filter { Self.percent($0) == 100 })")
        #expect(percents == percents.sorted(), "the bar went back: \(percents)")
        #expect(percents.last == 99, "the last second reads 99%: \(redrawn.suffix(3))")
        // The test's first line knows the whole matrix: three cells of 3 s warm-up and 10 s run.
        #expect(redrawn.first == "[1/3] threads ×5 #1: starting…  0 s, about 39 s left", "\(redrawn.prefix(2))")
        // Half-way through the second cell's run: (13 + 3 + 5) s of 39 done, 18 s left.
        let middle = try #require(redrawn.first { $0.hasPrefix("[2/3]") && $0.contains(" 21 s, ") })
        #expect(middle.contains("53%") && middle.contains("about 18 s left"), "\(redrawn.filter { $0.hasPrefix("[2/3]") })")
        // Every user's requests: ten users' 1,300, not one user's.
        #expect(redrawn.compactMap(Self.requests).max() == 13_000)
        #expect(redrawn.contains { $0.contains("users 10") })
        let finals = shown.filter(\.final).map(\.line)
        #expect(finals.filter { $0.contains("100%") } == ["test done: 100%, 3 runs in 39 s, 39000 requests"], "\(finals)")
        #expect(shown.last?.line == finals.last)
    }

    @Test("a single user scrolling its trace: the cell's frames, 99% at its end, 100% once done")
    func singleUser() {
        let clock = ManualClock()
        let lines = Lines()
        let observer = TerminalProgress(interactive: true, clock: clock) { lines.write($0) }
        let cell = RunCell(strategy: .threads, concurrency: 5, repetition: 1)
        observer.testPlanned(TestEstimate(cells: [.init(name: cell.name, warmUpSeconds: 0, runSeconds: 8)], exact: false))
        observer.runStarted(cell, index: 0, of: 1)
        for frame in stride(from: 0, through: 480, by: 60) {
            clock.sleep(until: clock.now() + 1_000_000_000)
            observer.runProgress(cell, RunProgress(frame: frame, traceFrames: 480, rowsVisited: frame, requests: frame, displayed: 0, inFlight: 1))
        }
        // The screen settles after the trace: still 99%, nothing left by the plan.
        clock.sleep(until: clock.now() + 2_000_000_000)
        observer.runProgress(cell, RunProgress(frame: 600, traceFrames: 480, rowsVisited: 480, requests: 490, displayed: 0, inFlight: 0))
        observer.runFinished(Self.result(cell, requests: 490))
        observer.testEnded(stoppedBy: nil)
        let shown = lines.shown.map(\.line)
        #expect(shown.contains("[1/1] threads ×5 #1 [##########----------] 50%  5 s, about 4 s left  rows 240  requests 240  in flight 1"),
                "\(shown)")
        #expect(shown.contains { $0.contains("] 99%  11 s, about 0 s left  rows 480") }, "\(shown)")
        #expect(shown.last == "test done: 100%, 1 run in 11 s, 490 requests")
    }

    @Test("the plan's time: a closed model's duration is known; warm-ups, traces and open models are estimates")
    func estimate() {
        let exact = TestEstimate(plan: Self.plan(strategies: [.threads, .gcd], warmup: 0), traceSeconds: 3)
        #expect(exact.exact && exact.seconds == 20 && exact.cells.map(\.warmUpSeconds) == [0, 0])
        let warmed = TestEstimate(plan: Self.plan(strategies: [.threads], warmup: 1), traceSeconds: 3)
        #expect(!warmed.exact && warmed.seconds == 11)
        var open = Self.plan(strategies: [.threads], warmup: 0)
        open.settings.load = .arrivalRate(perSecond: 2, seconds: 10)
        #expect(TestEstimate(plan: open, traceSeconds: 3).seconds == 13 && !TestEstimate(plan: open, traceSeconds: 3).exact)
        var single = Self.plan(strategies: [.threads], warmup: 0)
        (single.settings.load, single.settings.clients, single.repeats) = (nil, 1, 3)
        #expect(TestEstimate(plan: single, traceSeconds: 8).cells.map(\.runSeconds) == [8, 8, 8])
    }

    @Test("users on threads of their own: the crowd's line sums all of them, over the cell's time")
    func crowdSums() {
        let clock = ManualClock(start: 0)
        let reports = Locked<[RunProgress]>([])
        let crowd = CrowdProgress(users: 3, origin: 0, frameNanoseconds: 10_000_000, expectedFrames: 1_000, clock: clock) { progress in
            reports.withLockedValue { $0.append(progress) }
        }
        for user in 0..<3 { crowd.began(user, traceFrames: 100) }
        clock.sleep(until: 300_000_000)
        crowd.update(0, RunProgress(frame: 30, traceFrames: 100, rowsVisited: 0, requests: 7, displayed: 0, inFlight: 1))
        crowd.update(1, RunProgress(frame: 30, traceFrames: 100, rowsVisited: 0, requests: 11, displayed: 0, inFlight: 2))
        crowd.ended(2, requests: 5)
        clock.sleep(until: 600_000_000)
        crowd.update(1, RunProgress(frame: 60, traceFrames: 100, rowsVisited: 0, requests: 13, displayed: 0, inFlight: 0))
        crowd.finish()
        let all = reports.withLockedValue { $0 }
        // The first report, 300 ms in: only user 0 had reported; the second sums three users.
        #expect(all.map(\.requests) == [7, 25, 25])
        #expect(all.map(\.users) == [3, 2, 0] && all.map(\.frame) == [30, 60, 1_000] && all.allSatisfy { $0.traceFrames == 1_000 })
    }
}
