import Foundation
import Testing
@testable import ImageBench

@Suite("Measurement you can trust", .serialized)
struct MeasurementTests {
    static func run(rows: Int, network: String, strategies: [StrategyKind] = [.threads], repeats: Int = 1,
                    warmups: Int = 0) async throws -> BenchmarkResults {
        try await onOwnThread {
            var settings = RunSettings()
            settings.rows = rows
            settings.network = try NetworkProfile(parsing: network)
            settings.settleSeconds = 1
            return try Benchmark.run(BenchmarkPlan(settings: settings, strategies: strategies, concurrencies: [3],
                                                   repeats: repeats, warmups: warmups))
        }
    }

    @Test("each network load's stage times add up to its display latency: typically within a frame, always within three")
    func stagesAddUp() async throws {
        let results = try await Self.run(rows: 300, network: "latency=40ms,jitter=10ms,bandwidth=3MB/s")
        let result = try #require(results.results.first)
        let frame = 1_000_000_000 / Double(results.plan.settings.fps)
        let loads = result.requests.filter { $0.source == .network && $0.outcome == .displayed }
        #expect(loads.count > 5)
        // Latency runs vsync to vsync; the stages run from the submission to the main loop taking
        // the result, which happen during frames' work. They differ by under a frame, unless the
        // main loop itself ran late (a loaded machine, ThreadSanitizer): then by its lateness too.
        // So: the typical load within a frame, every load within three.
        var differences: [Double] = []
        for request in loads {
            let stages = try #require(request.stages)
            let difference = abs(Double(stages.total) - Double(request.latency!))
            differences.append(difference)
            #expect(difference <= 3 * frame, "request \(request.id): stages \(stages.total) ns, latency \(request.latency!) ns")
        }
        #expect(differences.sorted()[differences.count / 2] <= frame)
        #expect(result.stages["ttfb"].count > 0)
        #expect(result.stages["ttfb"].milliseconds(atPercentile: 50) >= 30)  // the profile's latency, less jitter
    }

    @Test("repeats are counted, warm-ups are not, and every confidence interval holds its median")
    func repeatsAndWarmups() async throws {
        let results = try await Self.run(rows: 80, network: "loopback", strategies: [.threads, .gcd], repeats: 3, warmups: 1)
        #expect(results.results.count == 6)
        #expect(results.results.allSatisfy { $0.cell.repetition >= 1 })
        #expect(Set(results.results.map(\.cell.repetition)) == [1, 2, 3])
        let aggregates = CellAggregate.of(results.results)
        #expect(aggregates.map(\.strategy) == ["threads", "gcd"])
        for cell in aggregates {
            #expect(cell.runs == 3)
            for (metric, estimate) in cell.estimates {
                #expect(estimate.low <= estimate.median && estimate.median <= estimate.high, "\(cell.strategy) \(metric)")
            }
        }
        let csv = try SummaryAggregateCSV().render(results)
        let rows = CSVTable.parse(csv)
        #expect(rows.count == 3)
        #expect(rows[0].contains("display_p95_ms_median") && rows[0].contains("display_p95_ms_ci_low")
                && rows[0].contains("display_p95_ms_ci_high"))
    }

    @Test("the bootstrap interval of the median is reproducible and sensible")
    func bootstrap() {
        let values = [10.0, 12, 11, 50, 13]
        let estimate = RepeatStatistics.median(values)
        #expect(estimate.median == 12)
        #expect(estimate == RepeatStatistics.median(values))
        #expect(estimate.low >= 10 && estimate.high <= 50)
        #expect(estimate.low < 12 && estimate.high > 12)
        #expect(RepeatStatistics.median([7]) == Estimate(median: 7, low: 7, high: 7, count: 1))
        #expect(RepeatStatistics.median(of: [1, 2, 3, 4]) == 2.5)
    }

    @Test("the same seed gives the same trace, requests and bytes; timing is all that may differ")
    func determinism() async throws {
        // Every frame of the trace is drawn, whatever the host's load (`runEveryFrame`): which
        // rows appear in which frame is then the trace's alone, so it is compared unconditionally.
        func run() async throws -> RunResult {
            try await onOwnThread {
                var settings = RunSettings()
                settings.rows = 120
                settings.network = try NetworkProfile(parsing: "latency=10ms")
                settings.settleSeconds = 1
                return try steppedRun(settings, concurrency: 3)
            }
        }
        let one = try await run(), two = try await run()
        var settings = RunSettings()
        settings.rows = 120
        let viewport = Viewport(rowCount: 120)
        #expect(ScrollTrace.generate(profile: .fling, viewport: viewport, fps: 60, seed: settings.seed)
                == ScrollTrace.generate(profile: .fling, viewport: viewport, fps: 60, seed: settings.seed))
        #expect(Feed(rows: 120, imageCount: 60, seed: 1).imageForRow == Feed(rows: 120, imageCount: 60, seed: 1).imageForRow)
        // Two 60-image corpora: seconds of CPU in a debug build, so not on a cooperative thread.
        let (a, b) = try await onOwnThread { (ImageCorpus.generate(count: 60, seed: 1), ImageCorpus.generate(count: 60, seed: 1)) }
        #expect(a.images.map(\.bytes) == b.images.map(\.bytes))
        // Bytes per URL as downloaded: every completed network load got exactly the corpus bytes.
        for run in [one, two] {
            for request in run.requests where request.source == .network && request.outcome == .displayed {
                #expect(request.bytes == a[request.imageID].bytes.count)
            }
        }
        func sequence(_ result: RunResult) -> [[Int]] { result.requests.map { [$0.row, $0.imageID, $0.visibleFrame] } }
        #expect(sequence(one) == sequence(two))
        #expect(Set(one.requests.map(\.row)) == Set(0..<120))
        // Whatever was seen, each row showed the image the feed assigns it.
        let feed = Feed(rows: 120, imageCount: 60, seed: 1)
        for request in one.requests + two.requests { #expect(request.imageID == feed.imageForRow[request.row]) }
    }

    @Test("summary.json validates against the committed JSON Schema, and a damaged one does not; its verdict recommends only what the text does")
    func schema() async throws {
        // Two strategies: the verdict answers one varied setting (summary.json's verdict.dimensions).
        let results = try await Self.run(rows: 60, network: "loopback", strategies: [.threads, .gcd], repeats: 2)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("schemas/summary.schema.json")
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        document = json.load(open(sys.argv[2]))
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        damaged = json.loads(json.dumps(document))
        del damaged["environment"]
        damaged["runs"][0]["display_p95_ms"] = "fast"
        print(json.dumps({"errors": [e.message for e in validator.iter_errors(document)],
                          "damaged_errors": len(list(validator.iter_errors(damaged)))}))
        """
        // Writing the reports and waiting for python3 block: on a thread of their own, not a cooperative one.
        let output = try await onOwnThread {
            try Reports.write(results, to: directory)
            return try runPython(script, arguments: [schema.path, directory.appendingPathComponent("summary.json").path])
        }
        let parsed = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect((parsed["errors"] as! [String]) == [])
        #expect(parsed["damaged_errors"] as? Int == 2)
        // A run on the wall clock says so at the top, beside virtual runs' "virtual".
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("summary.json"))) as? [String: Any]
        #expect(written?["time"] as? String == "real")
        let verdict = try #require(written?["verdict"] as? [String: Any])
        let dimensions = try #require(verdict["dimensions"] as? [[String: Any]])
        // Only valid cells are compared (a host slowed by ThreadSanitizer can leave one unranked).
        let valid = (verdict["cells"] as? [[String: Any]] ?? []).filter { $0["validity"] as? String == "valid" }.count
        if valid == 2 {
            #expect(dimensions.map { $0["setting"] as? String } == ["strategy"] && (dimensions.first?["values"] as? [String]) == ["threads", "gcd"], "\(dimensions)")
        } else {
            #expect(dimensions.isEmpty, "\(valid) valid cells: \(dimensions)")
        }
        // A cell is recommended exactly where the first line recommends one.
        // (No decision where no cell could be ranked: then nothing is recommended either.)
        let decision = verdict["decision"] as? String ?? "none", first = try #require((verdict["lines"] as? [String])?.first)
        #expect((verdict["recommended"] is NSNull) == !["better", "cheaper"].contains(decision) && first.hasPrefix("Recommended") == !(verdict["recommended"] is NSNull),
                "\(decision): \(first)")
    }
}
