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

extension ChildProcessRuns {
    /// The gate through the real binary: fresh runs of a recorded configuration, A/B rounds and
    /// --confirm as child processes, on a tiny loopback scenario. The regression is made
    /// deterministic (side B scrolls half the rows), so no verdict here depends on machine speed.
    @Suite("Gate: fresh and A/B runs through the binary")
    struct GateRunTests {
        static func json(_ url: URL) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        }

        @Test("a baseline's recorded configuration runs again; A/B finds a real regression and --confirm keeps it; --update-baseline refreshes")
        func freshAndInterleaved() async throws {
            let root = try Fixtures.temporaryDirectory("gate-runs")
            defer { try? FileManager.default.removeItem(at: root) }
            let baseline = root.appendingPathComponent("baseline")
            try await onOwnThread {
                let scenario = ["--rows", "40", "--images", "12", "--network", "loopback", "--strategies", "threads",
                                "--concurrency", "2", "--repeat", "4"]
                let made = try Fixtures.imgbench(["run"] + scenario + ["--quiet", "--out", baseline.path])
                try #require(made.status == 0, "\(made.output)")
                let configuration = try Self.json(baseline.appendingPathComponent("summary.json"))["configuration"] as! [String: Any]
                let arguments = configuration["arguments"] as? [String] ?? []
                #expect(!arguments.isEmpty && !arguments.contains("--out") && !arguments.contains("--quiet"))
                let plan = try RecordedPlan.read(directory: baseline.path)
                #expect(plan.settings.rows == 40 && plan.settings.imageCount == 12 && plan.settings.network.name == "loopback"
                        && plan.strategies == [.threads] && plan.concurrencies == [2] && plan.repeats == 4)

                let fresh = root.appendingPathComponent("fresh")
                let pass = try Fixtures.imgbench(["gate", "--baseline", baseline.path, "--threshold", "rows_visited -0",
                                              "--threshold", "errors <= 0", "--out", fresh.path])
                #expect(pass.status == 0, "\(pass.output)")
                // The fresh runs are not a silent wait: each finished one is said as it finishes.
                #expect(pass.output.contains("current [4/4] threads ×2 #4: done in "), "\(pass.output)")
                #expect(try ResultsDirectory(path: fresh.appendingPathComponent("current").path).runs.count == 4)
                let passJSON = try Self.json(fresh.appendingPathComponent("gate.json"))
                #expect(passJSON["verdict"] as? String == "pass" && (passJSON["checks"] as? [Any])?.count == 2)

                let ab = root.appendingPathComponent("ab")
                // Unlike configurations are refused, naming the difference, before anything runs.
                let refused = try Fixtures.imgbench(["gate", "--baseline", baseline.path, "--ab", "--rounds", "4", "--candidate-args", "--rows 20",
                                                     "--threshold", "rows_visited -0", "--out", ab.path])
                #expect(refused.status == 2 && refused.output.contains("settings.rows: 40 → 20")
                        && refused.output.contains("--allow-config-change"), "\(refused.output)")
                #expect(!FileManager.default.fileExists(atPath: ab.path))
                let fail = try Fixtures.imgbench(["gate", "--baseline", baseline.path, "--ab", "--rounds", "4", "--candidate-args", "--rows 20",
                                              "--allow-config-change", "--threshold", "rows_visited -0", "--confirm", "--out", ab.path])
                #expect(fail.status == 1, "\(fail.output)")
                #expect(fail.output.contains("REGRESSION: rows_visited in threads ×2"))
                // Each side scrolled its own feed: every row of it (fewer after late wakes, a CI run).
                func visitedItsRows(_ run: ResultRun, _ rows: Int) -> Bool {
                    guard let visited = run.value("rows_visited"), let late = run.value("host_late_frames") else { return false }
                    return Fixtures.countsEveryRow(Int(visited), exactly: rows, lateWakes: Int(late))
                }
                let a = try ResultsDirectory(path: ab.appendingPathComponent("ab-a").path)
                #expect(a.runs.map { $0.text("repeat") } == ["1", "2", "3", "4"] && a.runs.allSatisfy { visitedItsRows($0, 40) },
                        "\(a.runs.map { ($0.text("rows_visited") ?? "?", $0.text("host_late_frames") ?? "?") })")
                #expect(try ResultsDirectory(path: ab.appendingPathComponent("confirm-b").path).runs.allSatisfy { visitedItsRows($0, 20) })
                let failJSON = try Self.json(ab.appendingPathComponent("gate.json"))
                let check = try #require((failJSON["checks"] as? [[String: Any]])?.first)
                #expect(failJSON["verdict"] as? String == "regression" && failJSON["confirmed_by_rerun"] as? Bool == true)
                #expect(check["status"] as? String == "regression" && (check["p_value"] as? Double ?? 1) < 0.05)
                #expect(check["baseline_median"] as? Double == 40 && check["current_median"] as? Double == 20)

                // gate.md is a table to a CommonMark parser with GitHub's table extension (markdown-it-py).
                let cells = try runPython("""
                import sys
                from markdown_it import MarkdownIt
                tokens = MarkdownIt("commonmark").enable("table").parse(open(sys.argv[1]).read())
                rows = [t for t in tokens if t.type == "tr_open"]
                heads = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "th_open"]
                print(len(rows), "|".join(heads))
                """, arguments: [ab.appendingPathComponent("gate.md").path])
                #expect(cells.hasPrefix("2 cell|threshold|baseline|current|change|"), "\(cells)")

                try "kept".write(to: baseline.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
                let before = try Self.json(baseline.appendingPathComponent("summary.json"))["started_at"] as? String
                let update = try Fixtures.imgbench(["gate", "--baseline", baseline.path, "--update-baseline"])
                #expect(update.status == 0, "\(update.output)")
                #expect(try Self.json(baseline.appendingPathComponent("summary.json"))["started_at"] as? String != before)
                #expect(try String(contentsOf: baseline.appendingPathComponent("README.md"), encoding: .utf8) == "kept")
                #expect(try ResultsDirectory(path: baseline.path).runs.count == 4)
                #expect(!FileManager.default.fileExists(atPath: baseline.appendingPathComponent(".imgbench-update").path))
            }
        }
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
        // The cancel policy broken on purpose: no stage slowed, so a virtual run takes it.
        let policy = try FaultInjection(parsing: "cancel=running-only")
        #expect(policy.keepsQueuedLoads && !policy.slowsStages && injection.slowsStages && !injection.keepsQueuedLoads)
        #expect(throws: FaultInjection.ParseError.self) { try FaultInjection(parsing: "cancel=never") }
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
