import Foundation
import Testing
@testable import ImageBench

/// `imgbench run --threshold`: limits on a single run, k6-style.
@Suite("Thresholds on a single run")
struct RunThresholdTests {
    @Test("every run must keep a limit; the check names the run nearest to breaking it, or the first that broke it")
    func evaluate() throws {
        // 400 requests each: hit rates 0.3 and 0.6 from 120 and 240 memory hits (threads: none).
        let runs = [VerdictTests.run(.threads, 5, mean: 10) { $0.display.p95 = 40; $0.memoryHits = 300 },
                    VerdictTests.run(.gcd, 5, mean: 10) { $0.display.p95 = 70; $0.memoryHits = 120 },
                    VerdictTests.run(.gcd, 1, mean: 10) { $0.display.p95 = 90; $0.memoryHits = 240 }]
        let thresholds = try RunThresholds.parse(["display_p95_ms < 100", "display_p95_ms < 50", "memory_hit_rate >= 0.5", "errors <= 0"])
        let checks = RunThresholds.evaluate(thresholds, on: runs)
        #expect(checks.map(\.passed) == [true, false, false, true])
        #expect(checks[0].worst == 90 && checks[0].run == "gcd ×1 #1", "the largest value under <: \(checks[0])")
        #expect(checks[1].worst == 70 && checks[1].run == "gcd ×5 #1", "the first run that broke it: \(checks[1])")
        #expect(checks[2].worst == 0.3 && checks[2].line.hasPrefix("FAIL  memory_hit_rate >= 0.5"), "\(checks[2].line)")
        #expect(checks[3].line.hasPrefix("pass  errors <= 0"))
        #expect(RunThresholds.evaluate(thresholds, on: []).isEmpty, "no run, no check")
    }

    @Test("a ratio's limit may be a percentage; other metrics' may not")
    func percentages() throws {
        let rate = try Threshold(parsing: "error_rate < 1%")
        #expect(rate.rule == .limit(comparison: "<", value: 0.01) && rate.description == "error_rate < 1%")
        let runs = [VerdictTests.run(.gcd, 5, mean: 10) { $0.httpErrors = 8; $0.httpRequests = 400 }]
        #expect(RunThresholds.evaluate([rate], on: runs).map(\.passed) == [false], "2% of HTTP requests failed")
        #expect(RunThresholds.evaluate([try Threshold(parsing: "error_rate <= 2%")], on: runs).map(\.passed) == [true])
        #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "display_p95_ms < 5%") }
        #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "error_rate < inf") }
    }

    @Test("a change needs a baseline, an unknown metric lists the valid ones, a near miss gets a did-you-mean")
    func refused() {
        #expect(throws: Threshold.ParseError.self) { try RunThresholds.parse(["display_p95_ms +10%"]) }
        do {
            _ = try RunThresholds.parse(["ttfb_typo_ms < 3"])
            Issue.record("an unknown metric was accepted")
        } catch {
            #expect(error.description.contains("unknown metric 'ttfb_typo_ms'") && error.description.contains("display_p95_ms"))
        }
        // A near miss is named, not buried in a hundred names.
        for (typo, meant) in [("latency_p95", "display_p95_ms"), ("placeholder_maen_ms", "placeholder_mean_ms"), ("eror_rate", "error_rate")] {
            do {
                _ = try RunThresholds.parse(["\(typo) < 3"])
                Issue.record("\(typo) was accepted")
            } catch {
                #expect(error.description == "unknown metric '\(typo)' in threshold '\(typo) < 3'. Did you mean '\(meant)'?", "\(error)")
            }
        }
    }

    @Test("per_second columns hold every second of every run: the worst second is named; a count's last, partial second is left out")
    func perSecond() throws {
        func second(requests: Int, ttfb: [UInt64]) -> Timeline.Interval {
            var interval = Timeline.Interval()
            interval.httpRequests = requests
            for milliseconds in ttfb { interval.ttfb.record(nanoseconds: milliseconds * 1_000_000) }
            return interval
        }
        var run = VerdictTests.run(.gcd, 5, mean: 10) { _ in }
        run.timeline = Timeline(intervals: [second(requests: 900, ttfb: [1, 2]), second(requests: 400, ttfb: [30]),
                                            second(requests: 950, ttfb: []), second(requests: 12, ttfb: [3])])
        let thresholds = try RunThresholds.parse(["per_second.ttfb_p99_ms < 20", "per_second.http_requests > 300",
                                                  "per_second.http_requests > 500", "per_second.ttfb_max_ms <= 40"])
        let checks = RunThresholds.evaluate(thresholds, on: [run])
        #expect(checks.map(\.passed) == [false, true, false, true])
        #expect(checks[0].worst == 30 && checks[0].run == "gcd ×5 #1, second 1", "\(checks[0])")
        #expect(checks[1].worst == 400, "the 12 requests of the cut-short last second are left out: \(checks[1])")
        #expect(checks[2].line.hasPrefix("FAIL  per_second.http_requests > 500") && checks[2].run.hasSuffix("second 1"))
        #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "per_second.ttfb_p99_ms +10%") }
        do {
            _ = try Threshold(parsing: "per_second.latency_p95_ms < 3")
            Issue.record("a column timeseries.csv does not have was accepted")
        } catch {
            #expect(error.description.contains("per_second.ttfb_p99_ms"), "\(error.description)")
        }
    }

    @Test("through the binary: a broken limit exits 1 naming it after writing the reports, kept ones exit 0, a bad one 64")
    func commandLine() async throws {
        let directory = try Fixtures.temporaryDirectory("thresholds")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await onOwnThread {
            let common = ["--rows", "40", "--images", "10", "--network", "loopback", "--strategies", "threads", "--quiet"]
            let broken = try Fixtures.imgbench(common + ["--threshold", "display_p95_ms < 0.001", "--threshold", "errors <= 0",
                                                         "--threshold", "ttfb_p99_ms < 0.001", "--threshold", "per_second.http_requests >= 0",
                                                         "--out", directory.appendingPathComponent("broken").path])
            #expect(broken.status == 1, "\(broken.output)")
            #expect(broken.output.contains("FAIL  display_p95_ms < 0.001") && broken.output.contains("pass  errors <= 0"), "\(broken.output)")
            #expect(broken.output.contains("imgbench: threshold broken: display_p95_ms < 0.001"), "\(broken.output)")
            let data = try Data(contentsOf: directory.appendingPathComponent("broken/summary.json"))
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let listed = try #require(document["thresholds"] as? [[String: Any]])
            #expect(listed.map { $0["passed"] as? Bool } == [false, true, false, true])
            #expect(broken.output.contains("FAIL  ttfb_p99_ms < 0.001") && broken.output.contains("pass  per_second.http_requests >= 0"))
            let kept = try Fixtures.imgbench(common + ["--threshold", "display_p95_ms < 100000", "--out", directory.appendingPathComponent("kept").path])
            #expect(kept.status == 0 && kept.output.contains("pass  display_p95_ms < 100000"), "\(kept.output)")
            let unknown = try Fixtures.imgbench(common + ["--threshold", "ttfb_typo_ms < 3", "--out", directory.appendingPathComponent("never").path])
            #expect(unknown.status == 64 && unknown.output.contains("valid: "), "\(unknown.output)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("never").path))
        }
    }
}
