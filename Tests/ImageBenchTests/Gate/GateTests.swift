import Foundation
import Testing
@testable import ImageBench

@Suite("Gate: thresholds, statistics, verdicts")
struct GateTests {
    @Test("Mann–Whitney U matches SciPy's exact and asymptotic results")
    func mannWhitneyAgainstSciPy() throws {
        let cases: [([Double], [Double])] = [
            ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]),
            ([10.1, 12.3, 9.8, 11.0, 10.6], [10.4, 12.9, 11.7, 13.3, 12.2]),
            ([3.1, 4.1, 5.9, 2.6], [5.3, 5.8, 9.7, 9.3, 2.3, 8.4]),
            ([1, 1, 2, 2, 3], [2, 3, 3, 4, 4]),  // ties: normal approximation
        ]
        let script = """
        import json, sys
        from scipy.stats import mannwhitneyu
        out = []
        for x, y in json.loads(sys.argv[1]):
            ties = len(set(x + y)) < len(x + y)
            r = mannwhitneyu(x, y, alternative='two-sided', method='asymptotic' if ties else 'exact', use_continuity=True)
            out.append([float(r.statistic), float(r.pvalue)])
        print(json.dumps(out))
        """
        let input = String(decoding: try JSONSerialization.data(withJSONObject: cases.map { [$0.0, $0.1] }), as: UTF8.self)
        let reference = try JSONSerialization.jsonObject(with: Data(try runPython(script, arguments: [input]).utf8)) as! [[Double]]
        for (index, (x, y)) in cases.enumerated() {
            let result = MannWhitney.test(x, y)
            #expect(abs(result.u - reference[index][0]) < 1e-9, "case \(index): U \(result.u) vs \(reference[index][0])")
            #expect(abs(result.pValue - reference[index][1]) < 1e-6, "case \(index): p \(result.pValue) vs \(reference[index][1])")
        }
        #expect(MannWhitney.test([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).cliffsDelta == -1)
        #expect(MannWhitney.test([5, 5, 5], [5, 5, 5]).pValue == 1)
    }

    @Test("thresholds parse the three forms, judge in the metric's direction, and refuse unknown metrics")
    func thresholds() throws {
        let p95 = try Threshold(parsing: "latency_p95_ms +10%")
        #expect(p95.rule == .relative(fraction: 0.10))
        #expect(p95.exceeded(baseline: 100, current: 111))
        #expect(!p95.exceeded(baseline: 100, current: 109))
        #expect(!p95.exceeded(baseline: 100, current: 50))  // better is never a regression
        let hits = try Threshold(parsing: "memory_hit_rate -0.02")
        #expect(hits.exceeded(baseline: 0.50, current: 0.47))
        #expect(!hits.exceeded(baseline: 0.50, current: 0.49))
        #expect(!hits.exceeded(baseline: 0.50, current: 0.90))
        let limit = try Threshold(parsing: "latency_p95_ms < 250")
        #expect(limit.exceeded(baseline: nil, current: 250))
        #expect(!limit.exceeded(baseline: nil, current: 249))
        #expect {
            try Threshold(parsing: "latncy_p95_ms +10%")
        } throws: { error in
            let text = (error as? Threshold.ParseError)?.description ?? ""
            return text.contains("latncy_p95_ms") && text.contains("latency_p95_ms") && text.contains("memory_hit_rate")
        }
        #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "latency_p95_ms 10%") }
        #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "latency_p95_ms < fast") }
    }

    static func directory(p95: [Double], hitRates: [Double]) throws -> URL {
        let directory = try Fixtures.temporaryDirectory("gate")
        let summaries = zip(p95, hitRates).enumerated().map { index, pair in
            ReportTests.summary(strategy: "threads", concurrency: 5, p95: pair.0, hitRate: Int(pair.1 * 100))
        }
        var table = CSVTable(header: summaries[0].fields.map(\.name))
        for summary in summaries { table.append(summary.fields.map(\.value.formatted)) }
        try table.rendered.write(to: directory.appendingPathComponent("summary.csv"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("a consistent 30% slowdown is a regression; a change lost in noise is not; an improvement passes")
    func verdicts() throws {
        let baseline = try Self.directory(p95: [100, 102, 98, 101, 99], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        let slower = try Self.directory(p95: [130, 128, 133, 131, 129], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        let noisyBase = try Self.directory(p95: [100, 140, 60, 120, 80], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        let noisyNew = try Self.directory(p95: [112, 150, 70, 130, 90], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        let faster = try Self.directory(p95: [70, 71, 69, 72, 70], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        defer { for url in [baseline, slower, noisyBase, noisyNew, faster] { try? FileManager.default.removeItem(at: url) } }
        let rule = [try Threshold(parsing: "latency_p95_ms +10%")]
        let regression = GateEvaluation(baseline: try ResultsDirectory(path: baseline.path),
                                        current: try ResultsDirectory(path: slower.path), thresholds: rule)
        #expect(regression.regressed)
        let check = try #require(regression.checks.first)
        #expect(check.status == .regression && check.cell == "threads ×5")
        #expect(abs(check.relativeChange! - 0.30) < 1e-9)
        #expect(check.pValue! < 0.01 && check.cliffsDelta == 1)
        #expect(regression.markdown.contains("| threads ×5 | latency_p95_ms +10% |"))
        let json = try JSONSerialization.jsonObject(with: Data(try regression.json().utf8)) as! [String: Any]
        #expect(json["verdict"] as? String == "regression")

        let noise = GateEvaluation(baseline: try ResultsDirectory(path: noisyBase.path),
                                   current: try ResultsDirectory(path: noisyNew.path), thresholds: rule)
        #expect(!noise.regressed)
        #expect(noise.checks.first?.status == .noise)  // +12% on the medians, p ≈ 0.5

        let better = GateEvaluation(baseline: try ResultsDirectory(path: baseline.path),
                                    current: try ResultsDirectory(path: faster.path), thresholds: rule)
        #expect(!better.regressed && better.checks.first?.status == .pass)
    }

    @Test("the command's exit codes: 0 pass, 1 regression, 64 for a misspelled metric, 2 for a missing directory")
    func exitCodes() throws {
        let baseline = try Self.directory(p95: [100, 102, 98, 101, 99], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        let slower = try Self.directory(p95: [130, 128, 133, 131, 129], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        defer { for url in [baseline, slower] { try? FileManager.default.removeItem(at: url) } }
        func gate(_ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = KilledProcessTests.executable
            process.arguments = ["gate"] + arguments
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        #expect(try gate(["--baseline", baseline.path, "--current", baseline.path, "--threshold", "latency_p95_ms +10%"]).0 == 0)
        #expect(try gate(["--baseline", baseline.path, "--current", slower.path, "--threshold", "latency_p95_ms +10%"]).0 == 1)
        #expect(FileManager.default.fileExists(atPath: slower.appendingPathComponent("gate.md").path))
        let (status, message) = try gate(["--baseline", baseline.path, "--current", slower.path, "--threshold", "latency_p59_ms +10%"])
        #expect(status == 64)
        #expect(message.contains("latency_p59_ms") && message.contains("latency_p95_ms"))
        #expect(try gate(["--baseline", "/nonexistent/imgbench", "--current", slower.path, "--threshold", "latency_p95_ms +10%"]).0 == 2)
    }
}

@Suite("Fault injection (a testing aid)")
struct FaultInjectionTests {
    @Test("specs parse, and nonsense is refused with the reason")
    func parsing() throws {
        let injection = try FaultInjection(parsing: "latency=+20%, decode=+3ms")
        #expect(injection.latencyFactor == 1.2 && injection.decodeMilliseconds == 3)
        let shaped = injection.applied(to: try NetworkProfile(parsing: "wifi"))
        #expect(abs(shaped.latencyMilliseconds - 36) < 1e-9 && abs(shaped.jitterMilliseconds - 12) < 1e-9)
        #expect(throws: FaultInjection.ParseError.self) { try FaultInjection(parsing: "decode=+3%") }
        #expect(throws: FaultInjection.ParseError.self) { try FaultInjection(parsing: "paint=+3ms") }
        #expect(throws: FaultInjection.ParseError.self) { try FaultInjection(parsing: "decode=3ms") }
    }

    @Test("injected latency and decode time show up in every load's stages")
    func injected() async throws {
        let (summary, requests) = try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 80
            settings.network = try NetworkProfile(parsing: "latency=20ms")
            settings.settleSeconds = 1
            settings.injection = try FaultInjection(parsing: "latency=+30ms,decode=+4ms")
            let results = try Benchmark.run(BenchmarkPlan(settings: settings, strategies: [.threads], concurrencies: [4]))
            return (results.results[0].summary, results.results[0].requests)
        }
        let loads = requests.filter { $0.source == .network && $0.outcome == .displayed }
        #expect(summary.displayed > 0 && !loads.isEmpty)
        for request in loads {
            #expect(request.stages!.timeToFirstByte >= 50_000_000)
            #expect(request.stages!.decode >= 4_000_000)
        }
    }
}
