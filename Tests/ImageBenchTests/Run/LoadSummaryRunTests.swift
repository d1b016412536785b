import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// A load test's end-of-test summary, k6's figures, through the binary on its embedded server.
    @Suite("The load summary", .serialized)
    struct LoadSummaryRunTests {
        static let figures = ["http_reqs", "http_req_failed", "http_statuses", "http_req_duration", "http_req_waiting",
                              "http_req_connecting", "connections", "data_received", "data_sent", "sessions", "vus", "warm_up", "thresholds"]

        @Test("--clients 3 --no-decode: the terminal opens with every k6 figure per cell and no app verdict; summary.json's figures add up to summary.csv's; report.md and report.html show it; Chromium draws the table")
        func loadTest() async throws {
            try await onOwnThread { try Self.runAndCheck() }
        }

        /// A plain function, not the closure itself: the compiler's region checker (6.3.1) crashed on
        /// a closure this long.
        static func runAndCheck() throws {
            do {
                let root = try Fixtures.temporaryDirectory("load-summary")
                defer { try? FileManager.default.removeItem(at: root) }
                let out = root.appendingPathComponent("results")
                // One threshold kept and one broken: the run exits 1, and each cell says which.
                let run = try Fixtures.imgbench(["--clients", "3", "--no-decode", "--rows", "200", "--duration", "3s",
                                                 "--strategies", "threads,gcd", "--threshold", "error_rate < 1%",
                                                 "--threshold", "http_requests < 2", "--warmup-seconds", "1", "--out", out.path])
                #expect(run.status == 1, "\(run.output)")
                // The results open with the load summary (progress, on stderr, may come between).
                let opening = run.output.split(separator: "\n").first { line in
                    ["Load summary", "No app verdict", "strategy ", "Recommended"].contains { line.hasPrefix($0) }
                }
                #expect(opening?.hasPrefix("Load summary") == true, "\(run.output.prefix(1_500))")
                for cell in ["threads ×5", "gcd ×5"] {
                    let block = try #require(run.output.range(of: "  \(cell) (1 run, ").map { String(run.output[$0.lowerBound...]) })
                    // Every figure, in k6's order, on its own dotted line.
                    var rest = Substring(block)
                    for figure in Self.figures {
                        let found = try #require(rest.range(of: "\n    \(figure)."), "\(cell): no \(figure) line in \(block.prefix(1_500))")
                        rest = rest[found.upperBound...]
                    }
                    #expect(block.contains("thresholds............: ✓ error_rate < 1%; ✗ http_requests < 2"), "\(block.prefix(1_500))")
                    #expect(block.contains("vus...................: min=3 max=3"))
                    // The warm-up, played before each run and not counted, is said.
                    #expect(block.contains("warm_up...............: 1 s before each run (not counted here; the server sees its requests too"), "\(block.prefix(1_500))")
                }
                #expect(run.output.contains(ReportOpening.noAppVerdict) && !run.output.contains("Recommended"))

                // summary.json against summary.csv, cell by cell.
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json"))) as? [String: Any]
                let cells = try #require(json?["load_summary"] as? [[String: Any]])
                #expect(cells.count == 2)
                let csv = try ResultsDirectory(path: out.path).runs
                for cell in cells {
                    let name = try #require(cell["cell"] as? String)
                    let row = try #require(csv.first { $0.cell.name == name })
                    let requests = try #require((cell["http_reqs"] as? [String: Any])?["count"] as? Int)
                    let requestsInCSV = try #require(row.value("http_requests"))
                    #expect(requests == Int(requestsInCSV) && requests > 20, "\(name)")
                    // Every request ended one way: 2xx, a failure, or cut by a cancel.
                    let statuses = try #require(cell["http_statuses"] as? [String: Int])
                    #expect(statuses.values.reduce(0, +) == requests && statuses["2xx", default: 0] > 0, "\(statuses)")
                    // Every request that went out did on a new connection or a reused one (one a cancel
                    // cut before it was sent did neither); each user opened some.
                    let connections = try #require(cell["connections"] as? [String: Int])
                    let opened = try #require(connections["opened"]), reused = try #require(connections["reused"])
                    let cancelled = statuses["cancelled", default: 0]
                    #expect((requests - cancelled...requests).contains(opened + reused) && opened >= 3, "\(connections) for \(requests)")
                    let openedInCSV = try #require(row.value("connections_opened"))
                    #expect(opened == Int(openedInCSV))
                    let connecting = try #require(cell["http_req_connecting"] as? [String: Any])
                    #expect(connecting["count"] as? Int == opened)
                    // A GET with imgbench's headers is some tens of bytes; a response at least its body.
                    let sent = try #require((cell["data_sent"] as? [String: Any])?["bytes"] as? Int)
                    #expect((30 * requests...2_000 * requests).contains(sent), "\(sent) bytes sent for \(requests)")
                    let received = try #require((cell["data_received"] as? [String: Any])?["bytes"] as? Int)
                    let body = try #require(row.value("bytes_downloaded"))
                    #expect(Double(received) > body, "\(received)")
                    // Durations in order, from the merged histogram.
                    let duration = try #require(cell["http_req_duration"] as? [String: Any])
                    let ordered = try ["min", "med", "p90", "p95", "p99", "max"].map { try #require(duration[$0] as? Double) }
                    #expect(ordered == ordered.sorted() && ordered[0] > 0, "\(duration)")
                    // The delivered loads' requests: no more than the 2xx (a load cancelled after its
                    // answer arrived is a 2xx without a duration here).
                    #expect((duration["count"] as? Int ?? .max) <= statuses["2xx", default: 0], "\(duration) against \(statuses)")
                    let sessions = try #require((cell["sessions"] as? [String: Any])?["count"] as? Int)
                    let sessionsInCSV = try #require(row.value("sessions"))
                    #expect(sessions >= 3 && sessions == Int(sessionsInCSV))
                    #expect((cell["vus"] as? [String: Int]) == ["min": 3, "max": 3])
                    #expect((cell["warm_up"] as? [String: Double]) == ["seconds_per_run": 1])
                    let thresholds = try #require(cell["thresholds"] as? [[String: Any]])
                    #expect(thresholds.map { $0["passed"] as? Bool } == [true, false])
                }

                let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
                #expect(markdown.contains("## Load summary") && markdown.contains("| http_req_connecting |")
                        && markdown.contains(ReportOpening.noAppVerdict), "\(markdown.prefix(2_000))")
                // Nothing decoded: no filter named, no note on display latency under a table without it.
                #expect(markdown.contains("nothing decoded or filtered (`--no-decode`)") && !markdown.contains("filter `")
                        && !markdown.contains("Latency is display latency"), "\(markdown)")
                // `imgbench report` writes it again the same, thresholds judged as the run judged them.
                let rebuilt = try Fixtures.imgbench(["report", out.path])
                #expect(rebuilt.status == 0, "\(rebuilt.output)")
                let again = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
                let changed = zip(markdown.split(separator: "\n"), again.split(separator: "\n")).filter { $0.0 != $0.1 }.prefix(3)
                #expect(again == markdown, "\(changed.map { "\($0.0)\n→ \($0.1)" }.joined(separator: "\n"))")
                let page = out.appendingPathComponent("report.html")
                if let chromium = ChildProcessRuns.HTMLReportTests.chromium {
                    let drawn = try drawnTable(page, chromium: chromium, root: root)
                    // A header row and one row a figure, each with a value in both cells' columns.
                    #expect(drawn.first?.hasPrefix("figure|threads ×5 (1 run, ") == true, "\(drawn)")
                    #expect(drawn.dropFirst().map { $0.split(separator: "|").first.map(String.init) ?? "" } == Self.figures, "\(drawn)")
                    #expect(drawn.dropFirst().allSatisfy { $0.split(separator: "|", omittingEmptySubsequences: false).count == 3 })
                }
            }
        }

        /// The load summary table as Chromium laid it out: a line per row, cells' visible text joined by `|`.
        static func drawnTable(_ page: URL, chromium: String, root: URL) throws -> [String] {
            let script = """
                <script>window.addEventListener("load", () => { const t = document.querySelector("table.load-summary");
                const p = document.createElement("pre"); p.id = "drawn";
                p.textContent = t && t.offsetHeight > 0 ? [...t.rows].map(r => [...r.cells].map(c => c.innerText.trim()).join("|")).join("\\n") : "";
                document.body.appendChild(p); });</script></body>
                """
            let copy = root.appendingPathComponent("drawn.html")
            try String(contentsOf: page, encoding: .utf8).replacingOccurrences(of: "</body>", with: script).write(to: copy, atomically: true, encoding: .utf8)
            let dom = try ChildProcessRuns.HTMLReportWidthTests.dumpedDOM(copy, chromium: chromium, profile: root.appendingPathComponent("profile"), width: 1200)
            let text = HTMLReportLayoutTests.captures("<pre id=\"drawn\">([^<]*)</pre>", in: dom).first ?? ""
            return text.split(separator: "\n").map(String.init)
        }
    }
}
