import Testing
@testable import ImageBench

/// Rests of a trace, and the settle time and wait at rest the main loop records through them, on
/// frames the test steps: no clock.
@Suite("Settle time and wait at rest")
struct SettleTimeTests {
    /// Still for 10 frames, moving 20, still 3 (too short to be a rest), moving 5, still 10,
    /// moving 5 to the trace's end.
    static let trace: ScrollTrace = {
        var frames: [ScrollFrame] = []
        var offset = 0.0
        for (count, moving) in [(10, false), (20, true), (3, false), (5, true), (10, false), (5, true)] {
            for _ in 0..<count {
                if moving { offset += 10 }
                frames.append(ScrollFrame(offset: offset, dragging: false))
            }
        }
        return ScrollTrace(fps: 60, frames: frames)
    }()

    @Test("rests: still (and no finger) for 100 ms; the first screen and the trace's end are rests")
    func rests() {
        #expect(Self.trace.rests == [ScrollRest(start: 0, end: 10), ScrollRest(start: 38, end: 48), ScrollRest(start: 53, end: nil)])
        // A finger on a still screen is no rest.
        var held = Self.trace.frames
        for index in 0..<10 { held[index].dragging = true }
        #expect(ScrollTrace(fps: 60, frames: held).rests.first == ScrollRest(start: 38, end: 48))
        // A trace that ends still: its last rest starts where the content stopped.
        let stopping = ScrollTrace(fps: 60, frames: Self.trace.frames + Array(repeating: Self.trace.frames.last!, count: 4))
        #expect(stopping.rests.last == ScrollRest(start: 53, end: nil))
    }

    /// Steps a tracker through `frames` (frame, rows waiting) with 10 rows on screen.
    func track(_ frames: [(Int, Int)], endAt last: Int) -> [SettleSample] {
        var tracker = SettleTracker()
        tracker.begin(Self.trace, client: 0, session: 0, frameNanoseconds: 1_000, at: 0)
        for (frame, waiting) in frames { tracker.frame(frame, base: 0, waiting: waiting, visible: 10, frameNanoseconds: 1_000) }
        tracker.end(at: last, frameNanoseconds: 1_000)
        return tracker.samples
    }

    @Test("settle time to the frame no row waits, censored at the next scroll; wait at rest is the rows' mean wait")
    func settle() {
        let waiting: [Int: Int] = Dictionary(uniqueKeysWithValues: (0...60).map { frame in
            // The first screen: all ten wait, then five, then none at frame 7. Two rows wait through
            // the whole second rest (censored at its end). At the end one row waits, shown at frame 55.
            // While moving (10–37, 49–52) rows wait too, but no rest is watched.
            let count: Int
            switch frame {
            case 0...3: count = 10
            case 4...6: count = 5
            case 38...48: count = 2
            case 53...54: count = 1
            case 10...37, 49...52: count = 3
            default: count = 0
            }
            return (frame, count)
        })
        let samples = track((0...60).map { ($0, waiting[$0]!) }, endAt: 60)
        #expect(samples.map(\.rest) == [0, 1, 2])
        #expect(samples.map(\.nanoseconds) == [7_000, 10_000, 2_000])
        #expect(samples.map(\.censored) == [false, true, false])
        // (10 rows × 4 frames + 5 × 3) / 10 rows; 2 × 10 / 10; 1 × 2 / 10.
        #expect(samples.map(\.waitNanoseconds) == [5_500, 2_000, 200])
    }

    @Test("a rest the loop woke too late to see is counted, censored, as it would have waited")
    func skippedRest() {
        let samples = track([(0, 0), (36, 3), (50, 3), (53, 0)], endAt: 53)
        #expect(samples.count == 3)
        #expect(samples[1].rest == 1 && samples[1].censored && samples[1].nanoseconds == 10_000 && samples[1].waitNanoseconds == 3_000)
        // Nothing waits on the first frame past the rest's end (the host woke late): still
        // censored at the rest's length, never a settle time longer than the rest.
        let late = track([(0, 0), (40, 2), (52, 0)], endAt: 53)
        #expect(late[1].rest == 1 && late[1].censored && late[1].nanoseconds == 10_000, "\(late)")
        // A rest still open when the run ends is censored there.
        let open = track([(0, 0), (40, 2)], endAt: 44)
        #expect(open.last?.rest == 1 && open.last?.censored == true && open.last?.nanoseconds == 6_000)
        #expect(open.last?.waitNanoseconds == 1_200, "2 rows × 6 frames / 10 rows")
    }

    @Test("the summary's settle columns and the mean wait at rest come from the samples")
    func summary() {
        var distributions = RunDistributions()
        for (index, (settle, wait, censored)) in [(100, 50, false), (300, 120, true), (200, 70, false)].enumerated() {
            var sample = SettleSample(client: 0, session: 0, rest: index, nanoseconds: UInt64(settle) * 1_000_000, censored: censored)
            sample.waitNanoseconds = UInt64(wait) * 1_000_000
            distributions.settleSamples.append(sample)
            distributions.settle.record(nanoseconds: sample.nanoseconds)
        }
        var summary = RunSummary()
        distributions.fill(&summary)
        #expect(summary.settleRests == 3 && summary.settleCensored == 1)
        #expect(abs(summary.settle.mean - 200) < 1 && abs(summary.settle.p50 - 200) < 1)
        #expect(abs(summary.restWait.mean - 80) < 0.001)
    }
}
