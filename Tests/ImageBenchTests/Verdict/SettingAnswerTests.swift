import Foundation
import Testing
@testable import ImageBench

/// The verdict's answers to the questions a run asks (which limit, how big a cache, cancel or
/// prefetch), on constructed runs: the first line names a cell only where the per-setting answers
/// name its values, and summary.json says what the text says.
@Suite("The verdict's answers per setting")
struct SettingAnswerTests {
    /// A run of `strategy` at `limit` with `policies`, its requests in 20 segments of a 1,000-frame
    /// trace: `counts[segment]` requests each (20 by default), each `mean + offsets[segment]` ms
    /// with ±`spread` ms of seeded noise.
    static func run(_ strategy: StrategyKind = .threads, _ limit: Int = 5, policies: [PolicyDimension: String] = [:], mean: Double,
                    megabytes: Double = 10, counts: [Int]? = nil, offsets: [Double]? = nil, spread: Double = 3) -> RunResult {
        let variant = PolicyVariant(policies)
        var random = SeededRandom(seed: UInt64(limit) &* 7 &+ UInt64(variant.suffix.count), stream: strategy.rawValue + variant.suffix)
        var requests: [RequestRecord] = []
        for segment in 0..<SegmentMeans.segments {
            for index in 0..<(counts?[segment] ?? 20) {
                var request = RequestRecord(id: requests.count, row: requests.count, imageID: 0, url: "",
                                            visibleFrame: segment * 1_000 / SegmentMeans.segments + index % 50, requestedAt: 0, source: .network)
                let noise = (Double(random.next() % 10_001) / 10_000 * 2 - 1) * spread
                request.placeholder = UInt64(max(0, mean + (offsets?[segment] ?? 0) + noise) * 1e6)
                requests.append(request)
            }
        }
        let summary = VerdictTests.summary(strategy, limit, requests: requests.count, megabytes: megabytes)
        return RunResult(cell: RunCell(strategy: strategy, concurrency: limit, repetition: 1, variant: variant), summary: summary,
                         requests: requests, latency: LatencyHistogram(), stages: StageHistograms())
    }

    @Test("which limit: 8 beats 1 and 2 where the scroll's rests, a few requests each, carry most of the spread")
    func limit() throws {
        // Measured shape (gcd, wifi, 2,000 rows): 18 stretches of ~150 requests in which ×8 is a few
        // ms faster, and two rests of 4 requests in which ×1 and ×2 wait 300 ms longer. Unweighted,
        // those two stretches made ×8 against ×1 "not shown slower" (±48 ms around −23).
        let counts = (0..<20).map { [7, 8].contains($0) ? 4 : 150 }
        let rests = (0..<20).map { [7, 8].contains($0) ? 300.0 : 0 }
        let results = [Self.run(.gcd, 1, mean: 48, megabytes: 2, counts: counts, offsets: rests),
                       Self.run(.gcd, 2, mean: 47, megabytes: 2.5, counts: counts, offsets: rests),
                       Self.run(.gcd, 4, mean: 43, megabytes: 4, counts: counts),
                       Self.run(.gcd, 8, mean: 36, megabytes: 11, counts: counts)]
        let verdict = Verdict(results, traceFrames: 1_000)
        #expect(verdict.decision == .better && verdict.recommended?.name == "gcd ×8", "\(verdict.lines)")
        #expect(verdict.lines[0].hasPrefix("Recommended: gcd at a limit of 8: placeholder time "), "\(verdict.lines)")
        let limit = try #require(verdict.answers.first { $0.axis.name == "limit" })
        #expect(limit.settled == "8" && limit.contexts[0].comparisons.allSatisfy { $0.relation == .slower }, "\(limit.line)")
        #expect(verdict.lines[1].hasPrefix("  limit: 8 — placeholder time -12.") && verdict.lines[1].contains(" against 1, ")
                && verdict.lines[1].hasSuffix("; downloads +9.0 MB against 1 (11.0 against 2.0 MB)."), "\(verdict.lines[1])")
        // The interval of ×8 against ×1 is the stretches' weighted by their requests: narrow.
        let cells = Dictionary(uniqueKeysWithValues: verdict.cells.map { ($0.name, $0) })
        let difference = try #require(cells["gcd ×1"]!.ranking.difference(from: cells["gcd ×8"]!.ranking))
        #expect(difference.low > 5 && difference.high < 20, "\(difference)")
        // Weighted equally, the same stretches cannot tell them apart.
        let equal = try #require(Interval.of(Array(repeating: 12.0, count: 18) + [312, 312], center: 12.4))
        #expect(equal.includesZero, "\(equal)")
    }

    @Test("how big a cache: 16 MB beats 4 MB, 64 MB buys nothing over 16 MB, and the first line says both")
    func cache() throws {
        let results = [Self.run(policies: [.memoryCacheMB: "4"], mean: 31, megabytes: 11.6),
                       Self.run(policies: [.memoryCacheMB: "16"], mean: 10, megabytes: 3.5),
                       Self.run(policies: [.memoryCacheMB: "64"], mean: 9.9, megabytes: 3.5)]
        let verdict = Verdict(results, traceFrames: 1_000)
        #expect(verdict.decision == .cheaper && verdict.recommended?.name == "threads ×5 memory-cache=16MB", "\(verdict.lines)")
        #expect(verdict.lines[0].hasPrefix("Recommended: threads at a limit of 5 with memory-cache=16MB: beats threads ×5 memory-cache=4MB beyond noise, "
                                           + "and is no slower than threads ×5 memory-cache=64MB by more than a tie's margin (1.0 ms) while asking for less (memory-cache 16MB against 64MB)"),
                "\(verdict.lines[0])")
        #expect(verdict.lines[1].hasPrefix("  memory-cache: 16MB — placeholder time -21.") && verdict.lines[1].contains("against 4MB; 64MB buys nothing over it beyond a tie's margin (")
                && verdict.lines[1].contains("); downloads -8.1 MB against 4MB"), "\(verdict.lines[1])")
        let json = verdict.jsonObject
        #expect((json["recommended"] as? [String: Any])?["name"] as? String == "threads ×5 memory-cache=16MB")
        let dimension = try #require((json["dimensions"] as? [[String: Any]])?.first)
        #expect(dimension["setting"] as? String == "memory-cache" && dimension["choice"] as? String == "16")
        let comparisons = try #require(((dimension["contexts"] as? [[String: Any]])?.first?["comparisons"]) as? [[String: Any]])
        #expect(comparisons.map { $0["relation"] as? String } == ["slower", "tied"], "\(comparisons)")
    }

    @Test("a larger cache that may buy less than a tie's margin buys nothing: the smaller is the answer, one-sided")
    func nonInferior() throws {
        // Measured shape (threads, revisit, 1,000 rows): 16 MB leads 64 MB by 0.4 ms, 95% CI -1.0 to +0.2
        // ms: not equivalent both ways within ±1 ms, but 64 MB buys at most 0.2 ms over 16 MB.
        let shifts = (0..<20).map { Double($0 % 2) * 3.2 - 1.6 }
        let results = [Self.run(policies: [.memoryCacheMB: "4"], mean: 30, megabytes: 11.6),
                       Self.run(policies: [.memoryCacheMB: "16"], mean: 9.4, megabytes: 3.5, spread: 0.1),
                       Self.run(policies: [.memoryCacheMB: "64"], mean: 9.8, megabytes: 3.5, offsets: shifts, spread: 0.1)]
        let verdict = Verdict(results, traceFrames: 1_000)
        let cells = Dictionary(uniqueKeysWithValues: verdict.cells.map { ($0.name, $0) })
        let difference = try #require(cells["threads ×5 memory-cache=16MB"]!.ranking.difference(from: cells["threads ×5 memory-cache=64MB"]!.ranking))
        #expect(difference.low < -1 && difference.high < 1 && !Verdict.equivalent(cells["threads ×5 memory-cache=16MB"]!, cells["threads ×5 memory-cache=64MB"]!),
                "\(difference)")
        #expect(verdict.decision == .cheaper && verdict.recommended?.name == "threads ×5 memory-cache=16MB", "\(verdict.lines)")
        #expect(verdict.lines[1].contains("; 64MB buys nothing over it beyond a tie's margin ("), "\(verdict.lines[1])")
    }

    @Test("asking for less never outweighs being slower, nor costs: the first line and the answer agree when a larger cache downloads less")
    func askingLessAndCosts() throws {
        // 64 MB slower beyond noise though it downloads less: 16 MB is better, and the answer says 64 MB is slower.
        let slower = Verdict([Self.run(policies: [.memoryCacheMB: "16"], mean: 10, megabytes: 8),
                              Self.run(policies: [.memoryCacheMB: "64"], mean: 15, megabytes: 3)], traceFrames: 1_000)
        #expect(slower.decision == .better && slower.recommended?.name == "threads ×5 memory-cache=16MB", "\(slower.lines)")
        let answer = try #require(slower.answers.first)
        #expect(answer.contexts[0].comparisons.map(\.relation) == [.slower] && answer.settled == "16", "\(answer.line)")
        // 16 MB a hair faster, 64 MB no faster by more than the margin but downloading less beyond
        // noise: memory against bytes, a tie in the first line and in the answer alike.
        let shifts = (0..<20).map { Double($0 % 2) * 3.2 - 1.6 }
        let tradeOff = Verdict([Self.run(policies: [.memoryCacheMB: "16"], mean: 9.4, megabytes: 8, spread: 0.1),
                                Self.run(policies: [.memoryCacheMB: "64"], mean: 9.8, megabytes: 3, offsets: shifts, spread: 0.1)], traceFrames: 1_000)
        let context = try #require(tradeOff.answers.first?.contexts.first)
        #expect(tradeOff.decision == .tie && tradeOff.jsonObject["recommended"] is NSNull, "\(tradeOff.lines)")
        #expect(context.choiceValue == "16" && context.decision == .tie && context.comparisons.map(\.relation) == [.tied], "\(tradeOff.lines)")
        #expect(tradeOff.lines[1].hasPrefix("  memory-cache: a tie between 16MB and 64MB"), "\(tradeOff.lines[1])")
    }

    @Test("a cell left out for an overloaded host, faster than the leader, is said in the first line")
    func unrankedFaster() {
        let overloaded = Self.run(policies: [.cancel: "none", .prefetch: "10"], mean: 14)
        var summary = overloaded.summary
        summary.hostOverloaded = true
        summary.hostLateFrames = 59
        let results = [Self.run(policies: [.cancel: "none", .prefetch: "0"], mean: 22.7),
                       RunResult(cell: overloaded.cell, summary: summary, requests: overloaded.requests, latency: LatencyHistogram(), stages: StageHistograms()),
                       Self.run(policies: [.cancel: "offscreen", .prefetch: "0"], mean: 45), Self.run(policies: [.cancel: "offscreen", .prefetch: "10"], mean: 34)]
        let verdict = Verdict(results, traceFrames: 1_000)
        #expect(verdict.recommended?.name == "threads ×5 cancel=none prefetch=0", "\(verdict.lines)")
        #expect(verdict.lines[0].hasSuffix(" Not ranked, though its mean was lower: threads ×5 cancel=none prefetch=10 (14.0 ms; host overloaded: the loop woke "
                                           + "late on 59 frames); the answer is among the ranked cells only: a run on a quieter machine would rank it."), "\(verdict.lines[0])")
    }

    @Test("cancel and prefetch: the first line names the cell the effects choose, and each setting is answered at every value of the other")
    func cancelPrefetch() throws {
        let results = [Self.run(policies: [.cancel: "none", .prefetch: "0"], mean: 22, megabytes: 27),
                       Self.run(policies: [.cancel: "none", .prefetch: "10"], mean: 10.6, megabytes: 27),
                       Self.run(policies: [.cancel: "offscreen", .prefetch: "0"], mean: 43, megabytes: 4.6),
                       Self.run(policies: [.cancel: "offscreen", .prefetch: "10"], mean: 34.7, megabytes: 7.4)]
        let verdict = Verdict(results, traceFrames: 1_000)
        #expect(verdict.recommended?.name == "threads ×5 cancel=none prefetch=10" && verdict.decision == .better, "\(verdict.lines)")
        #expect(verdict.lines[1].hasPrefix("  cancel: none at every prefetch — at prefetch=0: placeholder time -20.")
                && verdict.lines[1].contains("; downloads +22.4 MB against offscreen (27.0 against 4.6 MB); at prefetch=10: "), "\(verdict.lines[1])")
        #expect(verdict.lines[2].hasPrefix("  prefetch: 10 at every cancel — at cancel=none: placeholder time -11."), "\(verdict.lines[2])")
        // Where the answer differs by context, the line says it depends.
        let crossed = Verdict([Self.run(policies: [.cancel: "none", .prefetch: "0"], mean: 22), Self.run(policies: [.cancel: "none", .prefetch: "10"], mean: 10),
                               Self.run(policies: [.cancel: "offscreen", .prefetch: "0"], mean: 12), Self.run(policies: [.cancel: "offscreen", .prefetch: "10"], mean: 30)],
                              traceFrames: 1_000)
        let cancel = try #require(crossed.answers.first { $0.axis.name == "cancel" })
        #expect(cancel.settled == nil && cancel.line.hasPrefix("cancel: depends on prefetch — at prefetch=0: offscreen — ")
                && cancel.line.contains("; at prefetch=10: none — "), "\(cancel.line)")
    }

    @Test("a tie or an open question recommends nothing in summary.json, and says so per setting")
    func tieRecommendsNothing() throws {
        let tie = Verdict([Self.run(.operationQueue, mean: 30), Self.run(.gcd, mean: 30.1)], traceFrames: 1_000)
        #expect(tie.decision == .tie, "\(tie.lines)")
        let json = tie.jsonObject
        #expect(json["recommended"] is NSNull && (json["leader"] as? [String: Any])?["name"] != nil && json["decision"] as? String == "tie")
        let strategy = try #require((json["dimensions"] as? [[String: Any]])?.first)
        #expect(strategy["choice"] is NSNull && strategy["setting"] as? String == "strategy")
        #expect(tie.lines[1].hasPrefix("  strategy: a tie between "), "\(tie.lines)")
        // Where only strategies vary, the answer says what they shared.
        let plan = BenchmarkPlan(settings: RunSettings(), strategies: [.operationQueue, .gcd], concurrencies: [5])
        let shared = Verdict([Self.run(.operationQueue, mean: 30), Self.run(.gcd, mean: 30.1)], traceFrames: 1_000, plan: plan)
        #expect(shared.lines[1].hasSuffix(" (each at a limit of 5, cancel=offscreen, prefetch=0, memory-cache=64MB, wifi)."), "\(shared.lines[1])")
        let open = Verdict([Self.run(.gcd, 1, mean: 22, spread: 40), Self.run(.gcd, 5, mean: 20, spread: 40)], traceFrames: 1_000)
        #expect(open.decision == .undecided && open.jsonObject["recommended"] is NSNull, "\(open.lines)")
        #expect(open.lines[1].hasPrefix("  limit: undecided: 5 leads, but 1 is not shown slower ("), "\(open.lines)")
    }
}
