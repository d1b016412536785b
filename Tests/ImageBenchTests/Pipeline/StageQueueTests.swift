import Foundation
import Testing
@testable import ImageBench

@Suite("Stage queues (--decode-concurrency, --filter-concurrency)", .serialized)
struct StageQueueTests {
    /// One run of 8 network slots on a slow link, every load finishing (`--cancel none`).
    static func run(decodeConcurrency: Int?, filterConcurrency: Int? = nil, slowDecode: Bool) async throws -> RunSummary {
        try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 300
            settings.network = try NetworkProfile(parsing: "latency=300ms")
            settings.cancelPolicy = .none
            settings.settleSeconds = 2
            settings.decodeConcurrency = decodeConcurrency
            settings.filterConcurrency = filterConcurrency
            if slowDecode { settings.injection = try FaultInjection(parsing: "decode=+150ms") }
            let results = try Benchmark.run(BenchmarkPlan(settings: settings, strategies: [.threads], concurrencies: [8]))
            return results.results[0].summary
        }
    }

    @Test("with a decode queue, a slowed decoder does not lower network concurrency; in one queue for the whole load, it does")
    func slowDecodeHoldsNoNetworkSlot() async throws {
        let split = try await Self.run(decodeConcurrency: 2, slowDecode: false)
        let splitSlow = try await Self.run(decodeConcurrency: 2, slowDecode: true)
        let single = try await Self.run(decodeConcurrency: nil, slowDecode: false)
        let singleSlow = try await Self.run(decodeConcurrency: nil, slowDecode: true)
        let report = [split, splitSlow, single, singleSlow].map {
            "network \($0.networkConcurrencyMean)/\($0.networkConcurrencyPeak), decode \($0.decodeConcurrencyMean)/\($0.decodeConcurrencyPeak), slots \($0.achievedConcurrencyMean)"
        }.joined(separator: "; ")
        print("stage queues (split, split slow, single, single slow): \(report)")
        // The decode queue's limit holds; in one queue, slowed decodes pile up in the slots.
        #expect(splitSlow.decodeConcurrencyPeak == 2 && split.decodeConcurrencyPeak <= 2, "\(report)")
        #expect(singleSlow.decodeConcurrencyPeak > 2, "\(report)")
        #expect(splitSlow.networkConcurrencyMean >= 0.85 * split.networkConcurrencyMean, "\(report)")
        #expect(singleSlow.networkConcurrencyMean <= 0.8 * single.networkConcurrencyMean, "\(report)")
        // No load failed and the policy cancelled none (`--cancel none`): a slow decoder delays
        // loads, it does not break them. Not "every load was shown": a fling carries rows off
        // screen before a 300 ms load lands, and the uncancelled backlog outlasts the settle time
        // (the last screen's rows still wait at the end), so never-displayed is not 0 here.
        for s in [split, splitSlow, single, singleSlow] {
            #expect(s.errors == 0 && s.decodeWarnings == 0 && s.cancelledQueued == 0 && s.cancelledInflight == 0, "\(report)")
            #expect(s.displayed > 0 && s.displayed + s.neverDisplayed == s.requests, "\(report)")
        }
    }
}
