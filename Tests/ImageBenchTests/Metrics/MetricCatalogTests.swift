import Foundation
import Testing
@testable import ImageBench

@Suite("The metric catalog")
struct MetricCatalogTests {
    /// summary.csv's header as imgbench wrote it before the catalog existed: the catalog must not
    /// change it.
    static let headerBeforeCatalog = """
        strategy,concurrency,repeat,network,transport,rows,rows_visited,requests,memory_hits,disk_hits,network_fetches,\
        merged,memory_hit_rate,disk_hit_rate,cancelled_queued,cancelled_inflight,bytes_downloaded,bytes_saved,bytes_wasted,\
        decode_ms_saved,wasted_completions,prefetch_loads,prefetch_cancelled,memory_evictions,disk_writes,disk_discarded,\
        errors,errors_http_status,errors_timeout,errors_connection,errors_too_large,errors_decode,errors_unsupported,\
        retries,http_requests,decode_warnings,displayed,never_displayed,display_p50_ms,display_p90_ms,display_p95_ms,\
        display_p99_ms,display_max_ms,placeholder_ratio,hitch_ms_per_s,main_busy_ms_per_s,dropped_frames,\
        achieved_concurrency_mean,achieved_concurrency_peak,images_decoded,images_per_s,bytes_per_s,cpu_user_s,cpu_sys_s,\
        peak_rss_mb,duration_s,partial
        """

    /// A summary whose every stored metric has a value of its own (so a mix-up of two fields shows).
    static func distinctSummary(strategy: String = "gcd", concurrency: Int = 5, offset: Int = 0) -> RunSummary {
        var summary = RunSummary()
        for (index, metric) in Metric.catalog.enumerated() {
            _ = metric.read(String(index + 1 + offset), into: &summary)
        }
        summary.strategy = strategy
        summary.concurrency = concurrency
        summary.network = "wifi"
        summary.transport = "blocking"
        summary.format = "jpeg+png"
        summary.partial = false
        return summary
    }

    @Test("summary.csv's header is the catalog, and the same columns as before the catalog")
    func headerIsTheCatalog() throws {
        let csv = try SummaryCSV().render(ReportTests.benchmark([ReportTests.result(Self.distinctSummary())]))
        let header = try #require(CSVTable.parse(csv).first)
        #expect(header == Metric.catalog.map(\.name))
        // Columns are only ever added: every earlier one is still there, in the same order.
        let before = Self.headerBeforeCatalog.split(separator: ",").map(String.init)
        #expect(header.filter(before.contains) == before)
        #expect(header.count == before.count + 67,
                "placeholder time (4 and its n), ready latency (3), host lateness (2), images loaded, the server's side (12), format and decode time per megapixel (3), concurrency per stage (6), progressive previews (5), resumed downloads (3), settle time (5) and wait at rest, placeholder row-seconds per second of scrolling, the policies (3), the settings that became dimensions in 0.5 (4), failed HTTP requests by status and cancelled (3), the wire and sessions (5), the protocols: http, connections per 1,000 requests, TLS handshake p50/p95/p99 (5)")
    }

    @Test("summary-aggregate.csv keeps its columns and their order; new ones come after")
    func aggregateHeader() throws {
        let csv = try SummaryAggregateCSV().render(ReportTests.benchmark([ReportTests.result(Self.distinctSummary())]))
        let header = try #require(CSVTable.parse(csv).first)
        let before = ["display_p50_ms", "display_p90_ms", "display_p95_ms", "display_p99_ms", "display_max_ms",
                      "memory_hit_rate", "disk_hit_rate", "network_fetches", "bytes_downloaded", "bytes_saved", "never_displayed",
                      "placeholder_ratio", "hitch_ms_per_s", "main_busy_ms_per_s", "dropped_frames", "achieved_concurrency_mean",
                      "images_per_s", "cpu_user_s", "cpu_sys_s", "peak_rss_mb", "duration_s"]
        let columns = ["strategy", "concurrency", "runs"] + before.flatMap { ["\($0)_median", "\($0)_ci_low", "\($0)_ci_high"] }
        #expect(Array(header.prefix(columns.count)) == columns, "new aggregates go after the old ones")
    }

    @Test("every measuring metric is a gate threshold with the catalog's direction, and is in compare's output")
    func gateAndCompareKnowEveryMetric() throws {
        let base = try Fixtures.temporaryDirectory("catalog-base"), new = try Fixtures.temporaryDirectory("catalog-new")
        defer {
            try? FileManager.default.removeItem(at: base)
            try? FileManager.default.removeItem(at: new)
        }
        try SummaryCSV().write(ReportTests.benchmark([ReportTests.result(Self.distinctSummary())]), to: base)
        try SummaryCSV().write(ReportTests.benchmark([ReportTests.result(Self.distinctSummary(offset: 3))]), to: new)
        let comparison = ResultsComparison(base: try ResultsDirectory(path: base.path), new: try ResultsDirectory(path: new.path))
        let compared = Set(comparison.lines.map(\.metric))
        // A breakdown (http_errors_by_status) is text: no threshold or comparison takes it.
        for metric in Metric.catalog where !metric.identifies && metric.isNumber {
            #expect(comparison.text.contains(metric.name), "compare's output lacks \(metric.name)")
            #expect(compared.contains(metric.name))
            let limit = try Threshold(parsing: "\(metric.name) < 100")
            #expect(limit.direction == metric.better, "\(metric.name)")
            if let better = metric.better {
                let relative = try Threshold(parsing: "\(metric.name) +10%")
                // 10 → 12 is worse for a lower-is-better metric, better for a higher-is-better one.
                #expect(relative.exceeded(baseline: 10, current: 12) == (better == .lowerIsBetter), "\(metric.name)")
            } else {
                #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "\(metric.name) +10%") }
            }
        }
        for metric in Metric.catalog where metric.identifies {
            #expect(!compared.contains(metric.name))
            #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "\(metric.name) < 1") }
        }
    }

    @Test("a summary written to CSV reads back the same, field by field")
    func csvRoundTrip() throws {
        let summary = Self.distinctSummary()
        let row = Dictionary(uniqueKeysWithValues: summary.fields.map { ($0.name, $0.value.formatted) })
        let back = try RunSummary(row: row)
        #expect(back.fields.map(\.value.formatted) == summary.fields.map(\.value.formatted))
        #expect(back[errors: .timeout] == summary[errors: .timeout] && back[errors: .timeout] > 0)
        var broken = row
        broken["display_p95_ms"] = "fast"
        #expect(throws: RunSummary.RowError.self) { try RunSummary(row: broken) }
    }

    @Test("users combine by each metric's rule: sums, largest, means, weighted means, recomputed rates")
    func combiningFollowsTheCatalog() {
        var a = RunSummary(), b = RunSummary()
        a.strategy = "threads"; b.strategy = "threads"
        a.requests = 100; b.requests = 300
        a.memoryHits = 50; b.memoryHits = 30
        a.bytesDownloaded = 1_000; b.bytesDownloaded = 2_500
        a.cpuUserS = 2; b.cpuUserS = 3
        a.durationS = 10; b.durationS = 12
        a.hitchMsPerS = 4; b.hitchMsPerS = 8
        a.placeholderRatio = 0.4; b.placeholderRatio = 0.2
        a[errors: .timeout] = 1; b[errors: .timeout] = 2
        b.partial = true
        let total = RunSummary.combining([a, b])
        #expect(total.strategy == "threads")
        #expect(total.requests == 400 && total.bytesDownloaded == 3_500 && total[errors: .timeout] == 3)
        #expect(total.cpuUserS == 3 && total.durationS == 12 && total.partial)
        #expect(total.hitchMsPerS == 6)
        #expect(abs(total.placeholderRatio - 0.25) < 1e-12)  // (0.4·100 + 0.2·300) / 400
        #expect(total.memoryHitRate == 0.2)  // 80 / 400, not the mean of 0.5 and 0.1
    }

    @Test("metric names are unique and the aggregated ones are the headline metrics")
    func namesAreUnique() {
        let names = Metric.catalog.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Metric.aggregated.map(\.name).contains("display_p95_ms"))
        #expect(Metric.named("memory_hit_rate")?.better == .higherIsBetter)
        #expect(Metric.named("no_such_metric") == nil)
    }
}

@Suite("The run's environment")
struct RunEnvironmentTests {
    /// `git` in this checkout: its status and its output.
    static func git(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", checkout.path] + arguments
        let output = Pipe()
        git.standardOutput = output
        git.standardError = FileHandle.nullDevice
        try git.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        git.waitUntilExit()
        return (git.terminationStatus, text)
    }

    @Test("the binary knows the commit it was built from, without any variable set (the BuildCommit plugin)")
    func compiledInCommit() throws {
        try #require(try Self.git(["rev-parse", "HEAD"]).status == 0, "not a git checkout")
        #expect(ProcessInfo.processInfo.environment["IMGBENCH_GIT_COMMIT"] == nil)
        let compiled = try #require(buildCommit, "no commit compiled in")
        let commit = String(compiled.prefix { $0 != "-" })
        #expect(commit.count == 40 && (compiled == commit || compiled == commit + "-dirty"), "\(compiled)")
        // The build's commit is HEAD, or (a commit made since the build) one of its ancestors.
        #expect(try Self.git(["merge-base", "--is-ancestor", commit, "HEAD"]).status == 0, "\(compiled) is not in this checkout's history")
        #expect(RunEnvironment.capture().gitCommit == buildCommit)
    }
}
