import Foundation
import Testing
@testable import ImageBench

/// The verdict's logic on constructed runs: each has 20 requests in each of the 20 segments of a
/// 1,000-frame trace, with placeholder times uniform in ±`spread` ms (5 by default) around a
/// chosen mean (seeded by the cell, so two cells' noise differs).
@Suite("The verdict")
struct VerdictTests {
    /// `noise` picks another draw of the noise (another run of the same cell).
    static func run(_ strategy: StrategyKind, _ limit: Int, mean: Double, megabytes: Double = 10, noise: UInt64 = 0,
                    spread: Double = 5, change: (inout RunSummary) -> Void = { _ in }) -> RunResult {
        var requests: [RequestRecord] = []
        var random = SeededRandom(seed: UInt64(limit) &+ noise &* 1_000, stream: strategy.rawValue)
        for segment in 0..<SegmentMeans.segments {
            for index in 0..<20 {
                var request = RequestRecord(id: requests.count, row: requests.count, imageID: 0, url: "", visibleFrame: segment * 1_000 / SegmentMeans.segments + index,
                                            requestedAt: 0, source: .network)
                let offset = (Double(random.next() % 10_001) / 10_000 * 2 - 1) * spread
                request.placeholder = UInt64(max(0, mean + offset) * 1e6)
                requests.append(request)
            }
        }
        var summary = RunSummary()
        summary.strategy = strategy.rawValue
        summary.concurrency = limit
        summary.requests = requests.count
        summary.displayed = requests.count
        summary.imagesDecoded = requests.count
        summary.imagesLoaded = requests.count
        summary.bytesDownloaded = Int(megabytes * 1e6)
        summary.cpuUserS = 1
        summary.achievedConcurrencyPeak = limit
        summary.transport = "blocking"
        summary.placeholderMeanMs = mean
        change(&summary)
        return RunResult(cell: RunCell(strategy: strategy, concurrency: limit, repetition: 1), summary: summary, requests: requests,
                         latency: LatencyHistogram(), stages: StageHistograms())
    }

    /// `result` with one settle sample per rest, its rows waiting `waits` ms on average.
    static func withRests(_ result: RunResult, waits: [Double]) -> RunResult {
        var distributions = result.distributions
        for (rest, wait) in waits.enumerated() {
            var sample = SettleSample(client: 0, session: 0, rest: rest, nanoseconds: UInt64(wait * 2e6), censored: false)
            sample.waitNanoseconds = UInt64(wait * 1e6)
            distributions.settleSamples.append(sample)
        }
        return RunResult(cell: result.cell, summary: result.summary, requests: result.requests, distributions: distributions)
    }

    @Test("with enough rests the verdict ranks by wait at rest, paired by rest; with too few it says so and shows the waits")
    func waitAtRest() {
        let slow = [500.0, 900, 450, 700, 1_200, 600, 800, 1_000]
        let fast = zip(slow, [180.0, 230, 150, 260, 420, 190, 240, 300]).map { $0 - $1 }
        // Placeholder time alike (a fling caps it); the rests tell the limits apart.
        let verdict = Verdict([Self.withRests(Self.run(.gcd, 1, mean: 80), waits: slow), Self.withRests(Self.run(.gcd, 6, mean: 80.5), waits: fast)],
                              traceFrames: 1_000)
        #expect(verdict.rankedBy == .restWait && verdict.decision == .better && verdict.recommended?.name == "gcd ×6", "\(verdict.lines)")
        #expect(verdict.lines[0].hasPrefix("Recommended: gcd at a limit of 6: wait at rest 5") && verdict.lines[0].contains("n = 8 rests"),
                "\(verdict.lines)")
        #expect(verdict.lines[1].contains("paired t over 8 rests"), "\(verdict.lines)")
        // Five rests: placeholder time ranks (a tie here), and a line says why, with each cell's wait.
        let few = Verdict([Self.withRests(Self.run(.gcd, 1, mean: 80), waits: Array(slow.prefix(5))),
                           Self.withRests(Self.run(.gcd, 6, mean: 80.5), waits: Array(fast.prefix(5)))], traceFrames: 1_000)
        #expect(few.rankedBy == .placeholder && few.decision == .tie, "\(few.lines)")
        #expect(few.lines.contains { $0.hasPrefix("Ranked by placeholder time: the trace came to rest 5 times") && $0.contains("gcd ×6 ") },
                "\(few.lines)")
    }

    @Test("heavy-tailed waits at rest: the t interval holds zero, the sign test over rests still shows ×1 slower")
    func signTestOverRests() throws {
        // Measured on --network 3g --scroll browse --rows 600 (release): gcd ×1 and ×6, 18 rests.
        let slow: [Double] = [486, 1_366, 1_210, 21, 195, 0, 51, 58, 148, 63, 0, 81, 29, 36, 90, 43, 0, 0]
        let fast: [Double] = [484, 659, 24, 21, 95, 0, 0, 13, 0, 0, 0, 19, 6, 30, 72, 18, 0, 0]
        let one = Self.withRests(Self.run(.gcd, 1, mean: 80), waits: slow), six = Self.withRests(Self.run(.gcd, 6, mean: 80.5), waits: fast)
        let verdict = Verdict([one, six], traceFrames: 1_000)
        let cells = Dictionary(uniqueKeysWithValues: verdict.cells.map { ($0.name, $0) })
        let difference = try #require(cells["gcd ×1"]?.ranking.difference(from: cells["gcd ×6"]!.ranking))
        #expect(difference.includesZero, "the t interval alone cannot tell: \(difference)")
        let rests = try #require(RestComparison(cells["gcd ×1"]!.ranking, cells["gcd ×6"]!.ranking))
        // The first rest's 486 against 484 ms is within the floor (5% of the mean): a tie.
        #expect(rests.longer == 12 && rests.shorter == 0 && rests.rests == 18 && abs(rests.p - 2.0 / 4_096) < 1e-9, "\(rests)")
        #expect(verdict.decision == .better && verdict.recommended?.name == "gcd ×6", "\(verdict.lines)")
        #expect(verdict.lines[1].contains("waited longer at 12 of 18 rests and shorter at 0"), "\(verdict.lines)")
        // The sign test itself: 5 of 5 is p = 0.0625 (undecided at 95%); 6 of 6 is 0.03125.
        #expect(abs(RestComparison.signTest(5, 0) - 0.0625) < 1e-12 && abs(RestComparison.signTest(6, 0) - 0.03125) < 1e-12)
        #expect(RestComparison.signTest(3, 3) == 1 && RestComparison.signTest(0, 0) == 1)
    }

    @Test("a clear winner is recommended, and the runner-up is named slower with its interval")
    func clearWinner() {
        let verdict = Verdict([Self.run(.gcd, 5, mean: 20), Self.run(.threads, 5, mean: 10)], traceFrames: 1_000)
        #expect(verdict.recommended?.name == "threads ×5")
        #expect(verdict.lines[0].hasPrefix("Recommended: threads at a limit of 5: placeholder time 10."), "\(verdict.lines)")
        #expect(verdict.lines[0].contains("95% CI") && verdict.lines[0].contains("n = 400 requests"))
        #expect(verdict.decision == .better)
        #expect(verdict.lines[1].hasPrefix("Runner-up gcd ×5") && verdict.lines[1].contains("threads ×5 is faster"), "\(verdict.lines)")
    }

    @Test("a difference inside the noise is a tie, broken by cost per displayed image")
    func tieBrokenByCost() {
        let verdict = Verdict([Self.run(.threads, 5, mean: 10.2, megabytes: 12), Self.run(.gcd, 5, mean: 10, megabytes: 8)],
                              traceFrames: 1_000)
        let fastest = Verdict([Self.run(.threads, 5, mean: 10.2, megabytes: 12), Self.run(.gcd, 5, mean: 10, megabytes: 30)],
                              traceFrames: 1_000)
        #expect(verdict.recommended?.name == "gcd ×5")
        #expect(fastest.recommended?.name == "threads ×5", "the cheaper of two tied cells, though not the fastest")
        #expect(fastest.lines[1].contains("a tie") && fastest.lines[1].contains("chosen by cost"), "\(fastest.lines)")
        // Cheaper beyond noise: recommended, and the first line says why.
        #expect(verdict.decision == .cheaper && fastest.decision == .cheaper)
        #expect(fastest.lines[0].hasPrefix("Recommended: threads at a limit of 5: as fast as gcd ×5 within noise and cheaper than each by more than"),
                "\(fastest.lines)")
    }

    @Test("the same configuration under two names is never a winner: a tie said as a tie in the first line")
    func sameUnderTwoNames() {
        for seed in UInt64(1)...5 {
            let verdict = Verdict([Self.run(.operationQueue, 5, mean: 30, noise: seed), Self.run(.gcd, 5, mean: 30, noise: seed + 10),
                                   Self.run(.threads, 5, mean: 30, noise: seed + 20)], traceFrames: 1_000)
            #expect(verdict.decision == .tie || verdict.decision == .undecided, "seed \(seed): \(verdict.lines)")
            #expect(!verdict.lines[0].hasPrefix("Recommended"), "seed \(seed): \(verdict.lines[0])")
            if verdict.decision == .tie {
                #expect(verdict.lines[0].hasPrefix("No difference beyond noise between operation-queue, gcd and threads ×5: placeholder time "),
                        "\(verdict.lines[0])")
                #expect(verdict.lines[0].contains("none is recommended over the others"), "\(verdict.lines[0])")
            }
        }
        // One cell alone is measured, not recommended.
        let alone = Verdict([Self.run(.threads, 5, mean: 10)], traceFrames: 1_000)
        #expect(alone.decision == .alone && alone.lines[0].hasPrefix("Measured: threads at a limit of 5, the only cell ranked"), "\(alone.lines)")
    }

    @Test("not shown different is not a tie: an interval that holds 0 but reaches past the margin leaves the faster mean recommended, however cheap the other")
    func undecided() throws {
        // Noisy cells about 20 and 22 ms: the difference's interval holds 0 and reaches past the margin.
        let faster = Self.run(.gcd, 5, mean: 20, megabytes: 30, spread: 40)
        let slower = Self.run(.threads, 1, mean: 22, megabytes: 5, spread: 40)
        let verdict = Verdict([slower, faster], traceFrames: 1_000)
        let difference = try #require(verdict.cells.first { $0.name == "threads ×1" }?.placeholder
            .difference(from: verdict.cells.first { $0.name == "gcd ×5" }!.placeholder))
        // Clipping at 0 lifts the noisy means a little; the margin is a tenth of the faster's.
        let margin = try #require(verdict.recommended.map { Verdict.tieMargin($0) })
        #expect(difference.includesZero && difference.high > margin, "\(difference), margin \(margin)")
        #expect(verdict.recommended?.name == "gcd ×5", "\(verdict.lines)")
        #expect(verdict.decision == .undecided && verdict.lines[0].hasPrefix("Undecided: gcd at a limit of 5 leads")
                && verdict.lines[0].contains("but threads ×1 is not shown slower beyond noise"), "\(verdict.lines)")
        #expect(verdict.lines[1].contains("undecided") && verdict.lines[1].contains(String(format: "±%.1f ms a tie needs", margin))
                && verdict.lines[1].contains("the faster mean stands"), "\(verdict.lines)")
        // The same cells with quiet noise are a tie, and the cheaper one is chosen.
        let quiet = Verdict([Self.run(.threads, 1, mean: 20.3, megabytes: 5), Self.run(.gcd, 5, mean: 20, megabytes: 30)], traceFrames: 1_000)
        #expect(quiet.recommended?.name == "threads ×1", "\(quiet.lines)")
        #expect(quiet.lines[1].contains("a tie") && quiet.lines[1].contains("within ±2.0 ms"), "\(quiet.lines)")
    }

    @Test("costs that differ inside their own noise do not break a tie: the faster mean stands")
    func costsAlike() {
        // Equal means: threads' noise draw makes it the faster by a hair. gcd has 1% fewer bytes and
        // 5% less CPU, what cancellations and a busy allocator move.
        let verdict = Verdict([Self.run(.threads, 5, mean: 10.2), Self.run(.gcd, 5, mean: 10.2, megabytes: 9.9) { $0.cpuUserS = 0.95 }],
                              traceFrames: 1_000)
        #expect(verdict.recommended?.name == "threads ×5", "\(verdict.lines)")
        #expect(verdict.lines[1].contains("a tie") && verdict.lines[1].contains("costs alike too, so the faster mean stands"), "\(verdict.lines)")
        #expect(verdict.decision == .tie && verdict.lines[0].hasPrefix("No difference beyond noise between threads and gcd ×5"), "\(verdict.lines)")
        let cheaper = Verdict([Self.run(.threads, 5, mean: 10.2), Self.run(.gcd, 5, mean: 10.2) { $0.cpuUserS = 0.8 }], traceFrames: 1_000)
        #expect(cheaper.recommended?.name == "gcd ×5", "20% less CPU is beyond the noise")
    }

    @Test("a cell whose loads mostly failed is not ranked, however short its placeholders")
    func failedCell() {
        let failed = Self.run(.gcd, 5, mean: 1) { summary in
            summary[errors: .connection] = 200
            summary.imagesDecoded = 0
            summary.imagesLoaded = 0
            summary.displayed = 0
        }
        let verdict = Verdict([failed, Self.run(.threads, 5, mean: 30)], traceFrames: 1_000)
        #expect(verdict.recommended?.name == "threads ×5")
        #expect(verdict.lines.last?.contains("gcd ×5 (not ranked: most loads failed (200 of 200))") == true, "\(verdict.lines)")
        let table = ComparisonTable([failed, Self.run(.threads, 5, mean: 30)], traceFrames: 1_000)
        #expect(table.best[0].isEmpty && table.rows[0][0] == "gcd (not ranked)")
    }

    @Test("an overloaded host's run is not ranked; nothing valid means could not measure")
    func overloadedCell() {
        let overloaded = Self.run(.threads, 5, mean: 5) { $0.hostOverloaded = true; $0.hostLateFrames = 90 }
        let verdict = Verdict([overloaded, Self.run(.gcd, 5, mean: 15)], traceFrames: 1_000)
        #expect(verdict.recommended?.name == "gcd ×5")
        #expect(verdict.lines.last?.contains("host overloaded") == true)
        let nothing = Verdict([overloaded], traceFrames: 1_000)
        #expect(nothing.recommended == nil && nothing.lines == [
            "Verdict: could not measure: no cell can be ranked (threads ×5: not ranked: host overloaded: the loop woke late on 90 frames).",
        ])
    }

    @Test("main-thread is the control: never recommended, never starred")
    func control() {
        let naive = Self.run(.mainThread, 1, mean: 2)
        let verdict = Verdict([naive, Self.run(.threads, 5, mean: 12)], traceFrames: 1_000)
        #expect(verdict.recommended?.name == "threads ×5")
        #expect(verdict.lines.last == "Not ranked: main-thread ×1 (the control).")
        let table = ComparisonTable([naive, Self.run(.threads, 5, mean: 12), Self.run(.gcd, 5, mean: 14)], traceFrames: 1_000)
        #expect(table.rows[0][0] == "main-thread (control)" && table.best[0].isEmpty)
        #expect(!table.best[1].isEmpty, "the valid runs still compete")
    }

    @Test("the knee: the smallest limit within noise of the recommended one")
    func knee() {
        let verdict = Verdict([Self.run(.threads, 1, mean: 40), Self.run(.threads, 2, mean: 10.1), Self.run(.threads, 5, mean: 10)],
                              traceFrames: 1_000)
        #expect(verdict.knee?.concurrency == 2)
        #expect(verdict.lines.contains { $0.hasPrefix("threads at a limit of 2 does as well within noise") }, "\(verdict.lines)")
    }

    @Test("a t interval from segment means matches the textbook numbers")
    func interval() throws {
        // Ten segment means 1…10: mean 5.5, sd 3.0277, t(0.975, 9) = 2.262 → ±2.166.
        let interval = try #require(Interval.of((1...10).map(Double.init), center: 5.5))
        #expect(abs(interval.low - 3.334) < 0.001 && abs(interval.high - 7.666) < 0.001 && interval.n == 10)
        #expect(StudentT.quantile975(degreesOfFreedom: 9) == 2.262)
        #expect(abs(StudentT.quantile975(degreesOfFreedom: 120) - 1.980) < 0.002)
    }

    /// 20 requests in each of 20 segments of a 1,000-frame trace, each repeat at its own mean,
    /// the segments ±`spread` around it in a fixed pattern (the trace's own ups and downs).
    static func means(_ repeatMeans: [Double], spread: Double = 3) -> SegmentMeans {
        let samples = repeatMeans.enumerated().flatMap { repetition, mean in
            (0..<400).map { index in
                SegmentMeans.Sample(repetition: repetition + 1, visibleFrame: index / 20 * 50,
                                    milliseconds: mean + spread * sin(Double(index / 20)))
            }
        }
        return SegmentMeans(samples, traceFrames: 1_000)
    }

    @Test("run-to-run noise the pairing cannot see: a shift of under 1% is a tie; repeats that disagree widen it")
    func runNoise() throws {
        // The same trace pattern in both, shifted: the paired differences are all equal, so
        // pairing alone would call any shift. 0.2 ms of 30 is within a run's noise; 3 ms is not.
        let small = try #require(Self.means([30.2]).difference(from: Self.means([30])))
        #expect(small.includesZero && small.high - small.center > 0.8, "\(small)")
        let large = try #require(Self.means([33]).difference(from: Self.means([30])))
        #expect(!large.includesZero && large.low > 2, "\(large)")
        // Three repeats each: ones that agree keep 3 ms a difference; ones 6 ms apart do not.
        let agreeing = try #require(Self.means([33, 33.1, 32.9]).difference(from: Self.means([30, 30.1, 29.9])))
        #expect(!agreeing.includesZero)
        let scattered = try #require(Self.means([28, 33, 38]).difference(from: Self.means([25, 30, 35])))
        #expect(scattered.includesZero, "\(scattered)")
    }
}
