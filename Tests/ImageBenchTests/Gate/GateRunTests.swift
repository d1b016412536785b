import Foundation
import Testing
@testable import ImageBench

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
