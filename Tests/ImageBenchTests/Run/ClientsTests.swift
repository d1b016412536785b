import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Many simulated users (`--clients`), load generation (`--no-decode`), and runs split into
    /// shards (`--shard I/N`) joined again with `imgbench merge`.
    @Suite("Clients, shards and merge", .serialized)
    struct ClientsTests {
        static func rows(_ url: URL) throws -> [[String: String]] {
            let table = CSVTable.parse(try String(contentsOf: url, encoding: .utf8))
            return table.dropFirst().filter { $0.count == table[0].count }.map { Dictionary(uniqueKeysWithValues: zip(table[0], $0)) }
        }

        @Test("--clients 20 --no-decode: the server answered exactly the clients' network fetches; per-client rows add up",
              arguments: [(StrategyKind.threads, TransportKind.blocking), (.events, .multi)])
        func manyClients(strategy: StrategyKind, transport: TransportKind) async throws {
            let result = try await onOwnThread {
                var settings = RunSettings()
                settings.rows = 300
                settings.clients = 20
                settings.decodes = false
                settings.cancelPolicy = .none  // every load started reaches the server (no queued cancels)
                settings.network = try NetworkProfile(parsing: "loopback")
                settings.imageCount = 100
                settings.transport = transport
                return try Benchmark.run(BenchmarkPlan(settings: settings, strategies: [strategy], concurrencies: [4])).results[0]
            }
            let server = try #require(result.server)
            #expect(result.clients.count == 20 && Set(result.clients.map(\.client)) == Set(0..<20))
            #expect(server.requests == result.summary.networkFetches && server.requests > 100, "server \(server.requests)")
            #expect(server.requests == result.summary.httpRequests)
            #expect(result.summary.networkFetches == result.clients.reduce(0) { $0 + $1.summary.networkFetches })
            #expect(result.summary.requests == result.clients.reduce(0) { $0 + $1.summary.requests })
            // Every user saw every row, or after late wakes fewer (a CI run under ThreadSanitizer
            // saw 4,695 of 6,000 after 424), each user still some and none more than its 300.
            let late = result.summary.hostLateFrames
            #expect(Fixtures.countsEveryRow(result.summary.requests, exactly: 20 * 300, lateWakes: late),
                    "\(result.summary.requests) requests, \(late) late frames")
            #expect(result.clients.allSatisfy { Fixtures.countsEveryRow($0.summary.requests, exactly: 300, lateWakes: late) })
            // --no-decode decodes nothing: every image was loaded, none decoded.
            #expect(result.summary.imagesDecoded == 0 && result.summary.imagesLoaded > 100 && result.summary.errors == 0)
            // Rates are the users' totals over the wall span, not a sum of each user's own rate.
            let wall = result.clients.map(\.summary.durationS).max() ?? 0
            #expect(result.summary.durationS == wall && result.summary.imagesPerS == 0)
            #expect(abs(result.summary.bytesPerS - Double(result.summary.bytesDownloaded) / wall) < 1e-6)
            // Each user scrolled its own trace: rows came into view at different frames.
            let timings = Set(result.clients.indices.map { index in
                result.requests.filter { $0.client == index }.prefix(60).map { "\($0.row)@\($0.visibleFrame)" }
            })
            #expect(timings.count == 20)
            // One thread stepped them all and recorded the crowd's distributions at three digits:
            // every user's every request is in them, and they are what merging the users' own
            // three-digit histograms would give (built here from the records).
            #expect(result.summary.placeholder.n == result.requests.count)
            #expect(result.summary.placeholder.n == result.clients.reduce(0) { $0 + $1.summary.placeholder.n })
            var latency = LatencyHistogram(), placeholder = LatencyHistogram()
            for request in result.requests {
                if let value = request.latency { latency.record(nanoseconds: value) }
                placeholder.record(nanoseconds: request.placeholder ?? 0)
            }
            #expect(result.latency == latency && result.placeholder == placeholder)
            #expect(result.summary.display.p99 == latency.milliseconds(atPercentile: 99))
            // Second by second (timeseries.csv), the run adds up to its summary exactly: HTTP
            // requests, rows' requests, bytes; the seconds' ttfb samples are the ttfb stage's.
            let seconds = result.timeline.intervals
            #expect(seconds.count >= 2 && seconds[0].activeUsers == 20)
            #expect(seconds.reduce(0) { $0 + $1.httpRequests } == result.summary.httpRequests)
            #expect(seconds.reduce(0) { $0 + $1.requests } == result.summary.requests)
            #expect(seconds.reduce(0) { $0 + $1.bytes } == result.summary.bytesDownloaded)
            #expect(seconds.reduce(0) { $0 + $1.ttfb.count } == result.stages["ttfb"].count)
            // The same loads' whole requests (no shorter than their first byte), and every image
            // shown, memory hits too, in the second it was shown.
            #expect(seconds.reduce(0) { $0 + $1.request.count } == result.stages["ttfb"].count)
            #expect(seconds.allSatisfy { $0.ttfb.count == 0 || $0.request.maxMilliseconds >= $0.ttfb.maxMilliseconds })
            #expect(seconds.reduce(0) { $0 + $1.display.count } == result.latency.count && result.latency.count == result.summary.displayed)
            let csv = CSVTable.parse(try TimeseriesCSV().render(BenchmarkResults(plan: BenchmarkPlan(settings: RunSettings(), strategies: [strategy],
                                                                                                      concurrencies: [4]),
                                                                                  results: [result], corpusImages: 0, corpusBytes: 0,
                                                                                  serverURL: "", traceSeconds: 0, startedAt: Date(),
                                                                                  environment: RunEnvironment.capture())))
            let column = try #require(csv.first?.firstIndex(of: "http_requests"))
            let rows = csv.dropFirst().filter { $0.count == csv[0].count }.map { Dictionary(uniqueKeysWithValues: zip(csv[0], $0)) }
            #expect(rows.reduce(0) { $0 + Int($1[csv[0][column]]!)! } == result.summary.httpRequests)
            #expect(rows.reduce(0) { $0 + Int($1["display_n"]!)! } == result.summary.displayed)
            // A second with loads has their whole-request percentiles; one without, empty cells.
            #expect(rows.allSatisfy { ($0["ttfb_n"] == "0") == ($0["request_p99_ms"] == "") })
            // Each user's own row is its own requests' distribution (rebuilt from its records in
            // a crowd, recorded live otherwise: the same).
            for (client, summary) in result.clients.prefix(3) {
                var own = LatencyHistogram()
                for request in result.requests where request.client == client {
                    own.record(nanoseconds: request.placeholder ?? 0)
                }
                #expect(summary.placeholder.p95 == own.milliseconds(atPercentile: 95) && summary.placeholder.n == own.count)
            }
        }

        @Test("four shards as processes, merged, equal the unsharded run: requests, hits, bytes; p99 of the union of samples")
        func shards() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("shards")
                defer { try? FileManager.default.removeItem(at: root) }
                // Slow scrolling on loopback without decoding: every image is in before its row
                // returns, so hits and bytes do not depend on timing.
                let common = ["--clients", "8", "--no-decode", "--rows", "40", "--images", "20", "--scroll", "browse",
                              "--cancel", "none", "--network", "loopback", "--strategies", "threads", "--quiet"]
                let runs = (0...4).map { index in
                    let shard = index == 0 ? [] : ["--shard", "\(index)/4"]
                    return try? BackgroundRun(common + shard + ["--out", root.appendingPathComponent("run-\(index)").path],
                                              log: root.appendingPathComponent("run-\(index).log"))
                }
                for run in runs {
                    let run = try #require(run)
                    run.process.waitUntilExit()
                    #expect(run.process.terminationStatus == 0, "\(run.output)")
                }
                let merged = try Fixtures.imgbench(["merge", "--out", root.appendingPathComponent("merged").path]
                                                       + (1...4).map { root.appendingPathComponent("run-\($0)").path })
                try #require(merged.status == 0, "\(merged.output)")
                let whole = try #require(try Self.rows(root.appendingPathComponent("run-0/summary.csv")).first)
                let joined = try #require(try Self.rows(root.appendingPathComponent("merged/summary.csv")).first)
                // The merge is exact: every count is the sum of the shards' own. The unsharded run is
                // another execution: what the trace fixes (requests, rows) is equal to it; what a late
                // image can move on a busy machine (a hit becomes a fetch: 235 against 234 hits seen
                // once with other suites beside it) is within 2%.
                let shards = try (1...4).map { try #require(try Self.rows(root.appendingPathComponent("run-\($0)/summary.csv")).first) }
                for column in ["requests", "memory_hits", "network_fetches", "bytes_downloaded", "displayed", "rows_visited"] {
                    let sum = shards.reduce(0) { $0 + (Int($1[column] ?? "") ?? 0) }
                    #expect(Int(joined[column] ?? "") == sum, "\(column): merged \(joined[column] ?? "?") vs shards' sum \(sum)")
                    let (unsharded, merged) = (Double(whole[column] ?? "") ?? -1, Double(joined[column] ?? "") ?? -2)
                    let exact = ["requests", "rows_visited"].contains(column)
                    #expect(exact ? unsharded == merged : abs(unsharded - merged) <= 0.02 * max(1, unsharded),
                            "\(column): \(whole[column] ?? "?") unsharded vs \(joined[column] ?? "?") merged")
                }
                #expect(try Self.rows(root.appendingPathComponent("merged/clients.csv")).map { $0["client"] } == (0..<8).map(String.init))
                // p99 of the union of every shard's displayed-latency samples.
                var union = LatencyHistogram()
                for shard in 1...4 {
                    for request in try Self.rows(root.appendingPathComponent("run-\(shard)/requests.csv")) where request["outcome"] == "displayed" {
                        union.record(nanoseconds: UInt64((Double(request["display_ms"]!)! * 1e6).rounded()))
                    }
                }
                #expect(union.count == Int(joined["displayed"]!))
                #expect(String(format: "%.3f", union.milliseconds(atPercentile: 99)) == joined["display_p99_ms"])
                // timeseries.csv: each merged second has the requests the shards' requests.csv
                // rows say were asked for in it, and the HTTP requests add up to the summary's.
                var perSecond: [Int: Int] = [:]
                for shard in 1...4 {
                    for request in try Self.rows(root.appendingPathComponent("run-\(shard)/requests.csv")) {
                        perSecond[Int(Double(request["requested_ms"]!)! / 1000), default: 0] += 1
                    }
                }
                let seconds = try Self.rows(root.appendingPathComponent("merged/timeseries.csv"))
                #expect(!seconds.isEmpty && seconds.map { Int($0["second"]!)! } == Array(0..<seconds.count))
                #expect(seconds.map { Int($0["requests"]!)! } == (0..<seconds.count).map { perSecond[$0, default: 0] })
                #expect(perSecond.keys.allSatisfy { $0 < seconds.count })
                #expect(seconds.reduce(0) { $0 + Int($1["http_requests"]!)! } == Int(joined["http_requests"]!))
                #expect(seconds.first?["active_users"] == "8")
                // The merged result held to thresholds: a broken one exits 1 naming it, after writing.
                let strict = try Fixtures.imgbench(["merge", "--out", root.appendingPathComponent("strict").path,
                                                    "--threshold", "ttfb_p99_ms < 0.001", "--threshold", "errors <= 0"]
                                                   + (1...4).map { root.appendingPathComponent("run-\($0)").path })
                #expect(strict.status == 1, "\(strict.output)")
                #expect(strict.output.contains("FAIL  ttfb_p99_ms < 0.001") && strict.output.contains("pass  errors <= 0"), "\(strict.output)")
                #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("strict/summary.json").path))
                // Shards of different configurations are refused.
                let mixed = try Fixtures.imgbench(["merge", "--out", root.appendingPathComponent("mixed").path,
                                                       root.appendingPathComponent("run-1").path, root.appendingPathComponent("run-0").path])
                #expect(mixed.status == 2, "\(mixed.output)")
            }
        }
    }
}
