import Foundation
import Testing
@testable import ImageBench

/// Under --clients or --no-decode the table speaks of the server first.
@Suite("The load table")
struct LoadTableTests {
    static func benchmark(_ runs: [RunResult], change: (inout RunSettings) -> Void) -> BenchmarkResults {
        var settings = RunSettings()
        change(&settings)
        return BenchmarkResults(plan: BenchmarkPlan(settings: settings, strategies: [.threads, .gcd], concurrencies: [5]),
                                results: runs, corpusImages: 10, corpusBytes: 1_000, serverURL: "http://127.0.0.1:1",
                                traceSeconds: 1, startedAt: Date(), environment: RunEnvironment.capture())
    }

    @Test("--clients or --no-decode: requests per second, errors and time to first byte first, no placeholder or hitch columns, nothing starred")
    func serverFirst() {
        let runs = [VerdictTests.run(.threads, 5, mean: 10) { $0.httpRequests = 900; $0.durationS = 2; $0.ttfb.p99 = 4.44 },
                    VerdictTests.run(.gcd, 5, mean: 20) { $0.httpRequests = 600; $0.durationS = 2; $0.httpErrors = 6; $0.httpErrorsByStatus.add(.status(404), count: 6) }]
        for change in [{ (settings: inout RunSettings) in settings.clients = 20 }, { $0.decodes = false }] {
            let table = ComparisonTable(Self.benchmark(runs, change: change))
            #expect(Array(table.header.prefix(9)) == ["strategy", "limit", "http req", "req/s", "http errors", "error rate", "ttfb p50 ms", "ttfb p90 ms", "ttfb p95 ms"])
            #expect(!table.header.contains("ph mean ms") && !table.header.contains("hitch ms/s") && !table.header.contains("placeholder"))
            #expect(table.rows[0][3] == "450" && table.rows[1][5] == "1.0%" && table.rows[0][table.header.firstIndex(of: "ttfb p99 ms")!] == "4.4",
                    "\(table.rows)")
            #expect(table.best.allSatisfy(\.isEmpty) && !table.text().contains("* best") && !table.markdown.contains("Bold: best"))
            #expect(table.text().contains("ttfb: time to first byte") && !table.text().contains("ph: placeholder time"))
        }
        // One user decoding: the app's table, as before.
        let app = ComparisonTable(Self.benchmark(runs) { _ in })
        #expect(app.header.contains("ph mean ms") && !app.header.contains("req/s") && app.text().contains("* best"))
    }

    @Test("the load summary's avg lies within its min and max, however the requests fall in their buckets",
          arguments: [[22_415], [22_400], [22_415, 22_415, 22_415], [47, 22_415, 90_001], [1_000_000_001]])
    func averageWithinExtremes(microseconds: [UInt64]) {
        var histogram = LatencyHistogram()
        for value in microseconds { histogram.record(nanoseconds: value * 1_000) }
        let durations = LoadSummary.Durations(histogram)
        let exact = Double(microseconds.reduce(0, +)) / Double(microseconds.count) / 1_000
        #expect(durations.min == Double(microseconds.min()!) / 1_000)
        #expect(durations.min <= durations.avg && durations.avg <= durations.max, "\(durations)")
        // The exact mean (the histogram keeps the sum), which always lies within them.
        #expect(durations.avg == exact, "avg \(durations.avg), exact \(exact)")
    }
}
