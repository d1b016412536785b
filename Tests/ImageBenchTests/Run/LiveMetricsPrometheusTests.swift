import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// `--metrics-address` scraped by a real Prometheus (Debian's), as a k6 user would watch a soak.
    @Suite("Live metrics scraped by Prometheus", .serialized)
    struct LiveMetricsPrometheusTests {
        @Test("Prometheus scraping --metrics-address every second ends with summary.csv's http_requests (within 1%), a duration per request, 4 users at the peak and none at the end",
              .enabled(if: PrometheusServer.executable != nil, "prometheus is not installed here (scripts/setup --test installs it; CI has it)"))
        func scrapedByPrometheus() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("live-metrics")
                defer { try? FileManager.default.removeItem(at: root) }
                let metricsPort = try Nginx.freePort()
                let prometheus = try PrometheusServer(scraping: metricsPort)
                defer { prometheus.stop() }
                let out = root.appendingPathComponent("results")
                // Instrumented: the metrics server's thread reads what the users' threads record.
                let run = try Fixtures.imgbench(["run", "--clients", "4", "--duration", "5s", "--no-decode", "--rows", "300",
                                                 "--strategies", "gcd,threads", "--out", out.path,
                                                 "--metrics-address", "127.0.0.1:\(metricsPort)"], instrumented: true)
                try #require(run.status == 0, "\(run.output)")
                #expect(!run.output.contains("no scrape read the final metrics"), "\(run.output)")
                let summary = try LoadModelNginxTests.table(out.appendingPathComponent("summary.csv"))
                func total(_ column: String, _ rows: [[String: String]] = summary) -> Double {
                    rows.reduce(0) { $0 + (Double($1[column] ?? "") ?? 0) }
                }
                let expected = total("http_requests")
                try #require(expected > 0)
                func near(_ value: Double?, _ target: Double) -> Bool { value.map { abs($0 - target) <= target * 0.01 } ?? false }
                // Each series' last sample: the target is gone, so a plain instant query finds it stale.
                let requests = "sum(last_over_time(imgbench_http_requests_total[10m]))"
                var scraped: Double?
                waitUntil(deadline: 30, every: 0.2) {
                    scraped = try? prometheus.scalar(requests)
                    return near(scraped, expected)
                }
                #expect(near(scraped, expected), "Prometheus: \(scraped.map { String($0) } ?? "nothing"), summary.csv: \(expected)")
                for strategy in ["gcd", "threads"] {
                    let cell = try prometheus.scalar("sum(last_over_time(imgbench_http_requests_total{strategy=\"\(strategy)\",limit=\"5\"}[10m]))")
                    #expect(near(cell, total("http_requests", summary.filter { $0["strategy"] == strategy })), "\(strategy): \(cell ?? -1)")
                }
                // Without --retries a network load is one request: one duration, one first byte each.
                #expect(near(try prometheus.scalar("sum(last_over_time(imgbench_http_request_duration_seconds_count[10m]))"), expected))
                #expect(near(try prometheus.scalar("sum(last_over_time(imgbench_time_to_first_byte_seconds_bucket{le=\"+Inf\"}[10m]))"), expected))
                let median = try prometheus.scalar("histogram_quantile(0.5, sum by (le) (last_over_time(imgbench_http_request_duration_seconds_bucket[10m])))")
                #expect(median.map { $0 > 0 && $0 < 10 } == true, "median request \(median ?? -1) s")
                #expect(near(try prometheus.scalar("sum(last_over_time(imgbench_bytes_received_total[10m]))"), total("bytes_downloaded")))
                #expect(try prometheus.scalar("sum(last_over_time(imgbench_http_requests_total{status=\"2xx\"}[10m]))").map { $0 > 0 } == true)
                // Every user of the crowd counted while it scrolled, and none once the run was over. (A
                // slow machine, under ThreadSanitizer, may start Prometheus's scrapes after the first
                // cell's users have gone: then only a later cell is seen at its peak.)
                let peaks = try prometheus.query("max_over_time(imgbench_active_users[10m])")
                #expect(peaks.count == 2 && peaks.allSatisfy { $0.value <= 4 } && peaks.contains { $0.value == 4 }, "\(peaks)")
                let ends = try prometheus.query("last_over_time(imgbench_active_users[10m])")
                #expect(ends.count == 2 && ends.allSatisfy { $0.value == 0 }, "\(ends)")
            }
        }

        @Test("a port in use, an address not this machine's or a bad port is one line and exit 64 before the run")
        func bindErrors() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("live-metrics-errors")
                defer { try? FileManager.default.removeItem(at: root) }
                let taken = try MetricsServer(address: MetricsAddress(host: "127.0.0.1", port: try Nginx.freePort()), metrics: LiveMetrics())
                defer { taken.shutdown() }
                let out = root.appendingPathComponent("results")
                for (address, message) in [("127.0.0.1:\(taken.address.port)", "cannot serve metrics at 127.0.0.1:\(taken.address.port): Address already in use"),
                                           ("192.0.2.1:9464", "cannot serve metrics at 192.0.2.1:9464: Cannot assign requested address"),
                                           ("127.0.0.1:0", "--metrics-address's port must be between 1 and 65535 (got 0)")] {
                    let run = try Fixtures.imgbench(["run", "--rows", "50", "--out", out.path, "--metrics-address", address])
                    #expect(run.status == 64, "\(address): \(run.output)")
                    #expect(run.output.contains(message), "\(address): \(run.output)")
                    #expect(run.output.split(separator: "\n").count <= 3 && !run.output.contains("scroll trace"), "\(address): \(run.output)")
                    #expect(!FileManager.default.fileExists(atPath: out.path))
                }
            }
        }
    }
}
