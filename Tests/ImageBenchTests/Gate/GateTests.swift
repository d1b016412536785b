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
        let p95 = try Threshold(parsing: "display_p95_ms +10%")
        #expect(p95.rule == .relative(fraction: 0.10))
        #expect(p95.exceeded(baseline: 100, current: 111))
        #expect(!p95.exceeded(baseline: 100, current: 109))
        #expect(!p95.exceeded(baseline: 100, current: 50))  // better is never a regression
        let hits = try Threshold(parsing: "memory_hit_rate -0.02")
        #expect(hits.exceeded(baseline: 0.50, current: 0.47))
        #expect(!hits.exceeded(baseline: 0.50, current: 0.49))
        #expect(!hits.exceeded(baseline: 0.50, current: 0.90))
        let limit = try Threshold(parsing: "display_p95_ms < 250")
        #expect(limit.exceeded(baseline: nil, current: 250))
        #expect(!limit.exceeded(baseline: nil, current: 249))
        #expect {
            try Threshold(parsing: "latncy_p95_ms +10%")
        } throws: { error in
            let text = (error as? Threshold.ParseError)?.description ?? ""
            return text.contains("latncy_p95_ms") && text.hasSuffix("Did you mean 'display_p95_ms'?")
        }
        #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "display_p95_ms 10%") }
        #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "display_p95_ms < fast") }
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
        let rule = [try Threshold(parsing: "display_p95_ms +10%")]
        let regression = GateEvaluation(baseline: try ResultsDirectory(path: baseline.path),
                                        current: try ResultsDirectory(path: slower.path), thresholds: rule)
        #expect(regression.regressed)
        let check = try #require(regression.checks.first)
        #expect(check.status == .regression && check.cell.name == "threads ×5")
        #expect(abs(check.relativeChange! - 0.30) < 1e-9)
        #expect(check.pValue! < 0.01 && check.cliffsDelta == 1)
        #expect(regression.markdown.contains("| threads ×5 | display_p95_ms +10% |"))
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
        let reports = try Fixtures.temporaryDirectory("gate-out")
        defer { for url in [baseline, slower, reports] { try? FileManager.default.removeItem(at: url) } }
        func gate(_ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = Fixtures.executable
            process.arguments = ["gate"] + arguments + ["--out", reports.path]
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        // These directories hold only summary.csv: no plan to check them by, so only with the flag.
        let unchecked = try gate(["--baseline", baseline.path, "--current", baseline.path, "--threshold", "display_p95_ms +10%"])
        #expect(unchecked.0 == 2 && unchecked.1.contains("cannot check that both sides ran the same configuration"), "\(unchecked.1)")
        let allowed = ["--allow-config-change"]
        #expect(try gate(allowed + ["--baseline", baseline.path, "--current", baseline.path, "--threshold", "display_p95_ms +10%"]).0 == 0)
        #expect(try gate(allowed + ["--baseline", baseline.path, "--current", slower.path, "--threshold", "display_p95_ms +10%"]).0 == 1)
        // The report goes under --out, never into the directory being judged.
        #expect(FileManager.default.fileExists(atPath: reports.appendingPathComponent("gate.md").path))
        #expect(!FileManager.default.fileExists(atPath: slower.appendingPathComponent("gate.md").path)
                && !FileManager.default.fileExists(atPath: slower.appendingPathComponent("gate.json").path))
        let (status, message) = try gate(["--baseline", baseline.path, "--current", slower.path, "--threshold", "latency_p59_ms +10%"])
        #expect(status == 64)
        #expect(message.contains("latency_p59_ms") && message.contains("Did you mean 'display_p50_ms'?"), "\(message)")
        #expect(try gate(["--baseline", "/nonexistent/imgbench", "--current", slower.path, "--threshold", "display_p95_ms +10%"]).0 == 2)
    }
}

extension GateTests {
    @Test("with 3 runs a side Mann–Whitney cannot reach 0.05, so the threshold alone decides; with 4 it can")
    func attainableSignificance() throws {
        #expect(abs(MannWhitney.smallestPValue(3, 3) - 0.1) < 1e-12)
        #expect(abs(MannWhitney.smallestPValue(4, 4) - 2.0 / 70) < 1e-12)
        #expect(MannWhitney.runsNeeded(alpha: 0.05) == 4 && MannWhitney.runsNeeded(alpha: 0.01) == 5)
        let base = try Self.directory(p95: [100, 101, 99], hitRates: [0.5, 0.5, 0.5])
        let slow = try Self.directory(p95: [130, 131, 129], hitRates: [0.5, 0.5, 0.5])
        defer { for url in [base, slow] { try? FileManager.default.removeItem(at: url) } }
        let evaluation = GateEvaluation(baseline: try ResultsDirectory(path: base.path), current: try ResultsDirectory(path: slow.path),
                                        thresholds: [try Threshold(parsing: "display_p95_ms +10%")])
        let check = try #require(evaluation.checks.first)
        #expect(check.status == .regression && check.pValue == nil)
        #expect(evaluation.text.contains("n/a (too few runs)"))
    }

    @Test("--confirm: a regression stands only if the re-run regresses too")
    func confirmation() throws {
        let baseline = try Self.directory(p95: [100, 102, 98, 101, 99], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        let slower = try Self.directory(p95: [130, 128, 133, 131, 129], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        let same = try Self.directory(p95: [101, 99, 100, 102, 98], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        defer { for url in [baseline, slower, same] { try? FileManager.default.removeItem(at: url) } }
        let rules = [try Threshold(parsing: "display_p95_ms +10%"), try Threshold(parsing: "memory_hit_rate -0.02")]
        let base = try ResultsDirectory(path: baseline.path)
        let first = GateEvaluation(baseline: base, current: try ResultsDirectory(path: slower.path), thresholds: rules)
        #expect(first.regressed && first.regressedCells.map(\.strategy.name) == ["threads"] && first.regressedCells[0].concurrency == 5)

        let hiccup = first.confirmed(by: GateEvaluation(baseline: base, current: try ResultsDirectory(path: same.path), thresholds: rules))
        #expect(!hiccup.regressed)
        #expect(hiccup.checks.map(\.status) == [.unconfirmed, .pass])
        #expect(hiccup.text.contains("NOT CONFIRMED") && hiccup.markdown.contains("re-run"))
        let json = try JSONSerialization.jsonObject(with: Data(try hiccup.json().utf8)) as! [String: Any]
        #expect(json["verdict"] as? String == "pass" && json["confirmed_by_rerun"] as? Bool == true)

        let real = first.confirmed(by: GateEvaluation(baseline: base, current: try ResultsDirectory(path: slower.path), thresholds: rules))
        #expect(real.regressed && real.checks[0].status == .regression)
    }

    @Test("argument strings split like a shell's words; an open quote is refused")
    func shellWords() throws {
        #expect(try ShellWords.split(#"--inject 'latency=+25%'  --source "http://h/{id}.jpg" a\ b"#)
            == ["--inject", "latency=+25%", "--source", "http://h/{id}.jpg", "a b"])
        #expect(try ShellWords.split("   ") == [])
        #expect(try ShellWords.split(#"--x "" y"#) == ["--x", "", "y"])
        #expect(throws: ShellWords.ParseError.self) { try ShellWords.split("--inject 'latency") }
    }

    @Test("joined one-repeat rounds renumber their repeats per cell")
    func combiningRounds() throws {
        let first = try Self.directory(p95: [100], hitRates: [0.5])
        let second = try Self.directory(p95: [110], hitRates: [0.5])
        let joined = try Fixtures.temporaryDirectory("joined")
        defer { for url in [first, second, joined] { try? FileManager.default.removeItem(at: url) } }
        let combined = try ResultsDirectory.combining([try ResultsDirectory(path: first.path), try ResultsDirectory(path: second.path)],
                                                      into: joined)
        let reread = try ResultsDirectory(path: joined.path)
        #expect(reread.runs.map(\.repetition) == [1, 2] && reread.runs.map { $0.text("repeat") } == ["1", "2"] && combined.runs.count == 2)
        #expect(reread.runs.map { $0.text("display_p95_ms") } == ["100.000", "110.000"])
    }
}

extension GateTests {
    @Test("a threshold whose metric a side lacks is said, never dropped: a baseline recorded before placeholder time existed")
    func missingMetric() throws {
        let baseline = try Self.directory(p95: [100, 102, 98, 101, 99], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        let current = try Self.directory(p95: [100, 101, 99, 100, 98], hitRates: [0.5, 0.5, 0.5, 0.5, 0.5])
        defer { for url in [baseline, current] { try? FileManager.default.removeItem(at: url) } }
        // The baseline as an older imgbench wrote it: no placeholder_mean_ms column.
        let file = baseline.appendingPathComponent("summary.csv")
        let rows = CSVTable.parse(try String(contentsOf: file, encoding: .utf8))
        let dropped = try #require(rows[0].firstIndex(of: "placeholder_mean_ms"))
        var table = CSVTable(header: rows[0].enumerated().filter { $0.offset != dropped }.map(\.element))
        for row in rows.dropFirst() { table.append(row.enumerated().filter { $0.offset != dropped }.map(\.element)) }
        try table.rendered.write(to: file, atomically: true, encoding: .utf8)
        let rules = [try Threshold(parsing: "display_p95_ms +10%"), try Threshold(parsing: "placeholder_mean_ms +5%")]
        let evaluation = GateEvaluation(baseline: try ResultsDirectory(path: baseline.path), current: try ResultsDirectory(path: current.path), thresholds: rules)
        #expect(evaluation.checks.count == 1 && evaluation.unevaluated == ["'placeholder_mean_ms +5%': placeholder_mean_ms is missing from the baseline"],
                "\(evaluation.unevaluated)")
        // Through the binary: exit 2 naming it, no PASS.
        let out = try Fixtures.temporaryDirectory("gate-missing")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try Fixtures.imgbench(["gate", "--baseline", baseline.path, "--current", current.path, "--allow-config-change",
                                         "--threshold", "display_p95_ms +10%", "--threshold", "placeholder_mean_ms +5%", "--out", out.path])
        #expect(run.status == 2 && run.output.contains("cannot check 'placeholder_mean_ms +5%': placeholder_mean_ms is missing from the baseline")
                && !run.output.contains("PASS"), "\(run.output)")
    }
}

extension GateTests {
    @Test("a gate whose checks could not be tested says so on its last line and in gate.json; a run with too few repeats for it warns")
    func untested() throws {
        let baseline = try Self.directory(p95: [100, 102, 98], hitRates: [0.5, 0.5, 0.5])
        let current = try Self.directory(p95: [101, 100, 99], hitRates: [0.5, 0.5, 0.5])
        defer { for url in [baseline, current] { try? FileManager.default.removeItem(at: url) } }
        let rules = [try Threshold(parsing: "display_p95_ms +10%"), try Threshold(parsing: "errors <= 0")]
        let evaluation = GateEvaluation(baseline: try ResultsDirectory(path: baseline.path), current: try ResultsDirectory(path: current.path), thresholds: rules)
        // The limit needs no test; the change could not have one.
        #expect(evaluation.untested.count == 1 && evaluation.verdictLine == "PASS: 2 checks, no regression; 1 of the 2 could not be tested against noise "
                + "(3 baseline and 3 current runs a cell; a test needs 4 a side), so their thresholds alone decided", "\(evaluation.verdictLine)")
        let json = try JSONSerialization.jsonObject(with: Data(try evaluation.json().utf8)) as? [String: Any]
        #expect(json?["untested_checks"] as? Int == 1)
        var options = RunOptions()
        options["repeat"] = "3"
        #expect(options.notes.contains { $0.hasPrefix("--repeat 3: as a gate's baseline these runs cannot show a change beyond noise") }, "\(options.notes)")
        options["repeat"] = "5"
        #expect(options.notes.isEmpty)
    }
}

extension GateTests {
    @Test("a file that cannot be written is named with the operating system's reason, not Foundation's error number")
    func unwritable() throws {
        let baseline = try Self.directory(p95: [100, 102, 98, 101], hitRates: [0.5, 0.5, 0.5, 0.5])
        defer { try? FileManager.default.removeItem(at: baseline) }
        let run = try Fixtures.imgbench(["gate", "--baseline", baseline.path, "--current", baseline.path, "--allow-config-change",
                                         "--threshold", "display_p95_ms +10%", "--out", "/dev/null/gate"])
        #expect(run.status == 2 && run.output.contains("/dev/null/gate") && run.output.contains("/dev/null is not a directory")
                && !run.output.contains("NSCocoaErrorDomain"), "\(run.output)")
    }
}
