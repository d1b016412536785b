import Foundation
import Synchronization
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Errors first, on a real loopback server: a `{id}.jpg` template over a jpeg+png corpus, so
    /// about half the ids answer 404.
    @Suite("A run full of 404s", .serialized)
    struct ErrorRunTests {
        @Test("half the URLs 404: error_rate = http_errors ÷ http_requests, 404 counted as the server counted it, not ranked, said first and last, in every output")
        func fourOhFours() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("four-oh-fours")
                defer { try? FileManager.default.removeItem(at: root) }
                let notFound = Atomic<Int>(0)
                let corpus = ImageCorpus.generate(count: 40, seed: 3)
                let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: .unshaped, seed: 3, log: { served in
                    if served.status == 404 { notFound.add(1, ordering: .relaxed) }
                })
                defer { server.shutdown() }
                let out = root.appendingPathComponent("results")
                let run = try Fixtures.imgbench(["--source", "\(server.baseURL)/img/{id}.jpg", "--images", "40", "--rows", "200",
                                                 "--duration", "3s", "--clients", "2", "--no-decode", "--strategies", "threads",
                                                 "--out", out.path])
                #expect(run.status == 0, "\(run.output)")
                let summary = try #require(try ResultsDirectory(path: out.path).runs.first)
                let requests = try #require(summary.value("http_requests")), errors = try #require(summary.value("http_errors"))
                #expect(requests > 50 && errors > 10, "\(summary)")
                // Every failed request is a 404, as many as the server answered: beside them, the
                // preflight's one request (row 0's image, a png or not), and a 404 whose answer a
                // cancel beat to the client (sent, but not failed: rare on loopback).
                #expect(summary.text("http_errors_by_status") == "404:\(Int(errors))")
                let served = notFound.load(ordering: .relaxed)
                #expect((0...2).contains(served - Int(errors)), "\(Int(errors)) vs the server's \(served)")
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json"))) as? [String: Any]
                let first = try #require((json?["runs"] as? [[String: Any]])?.first)
                let rate = try #require(first["error_rate"] as? Double)
                // The same quotient (JSON keeps 17 digits; the last may differ).
                #expect(abs(rate - errors / requests) < 1e-12, "\(rate) vs \(errors) / \(requests)")
                #expect(rate > 0.2 && rate < 0.9, "about half the ids are pngs: \(rate)")
                #expect((first["http_errors_by_status"] as? [String: Int]) == ["404": Int(errors)])
                // Not ranked, and the first line of the terminal says so with the status and its count.
                let percent = ErrorLimit.percent(rate)
                let lines = run.output.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("source ") && !$0.hasPrefix("scroll trace") && !$0.hasPrefix("[") }
                let opening = "threads ×5: not ranked: \(percent) of HTTP requests failed (404 ×\(Int(errors)); over --max-error-rate 1%): is the URL template right?"
                #expect(lines.first == opening, "\(run.output.prefix(1_200))")
                #expect(lines.last?.hasPrefix("imgbench: warning: 1 of 1 cell over --max-error-rate 1%, not ranked; worst threads ×5: ") == true
                        && lines.last?.contains("(404 ×\(Int(errors)))") == true, "\(lines.last ?? "")")
                #expect(!run.output.contains("Recommended"))
                // report.md and report.html open with it, and list the statuses.
                let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
                #expect(markdown.contains("**\(opening)**") && markdown.contains("## Errors\n\n- threads ×5: ")
                        && markdown.contains("HTTP requests failed: 404 ×\(Int(errors))"), "\(markdown.prefix(1_200))")
                let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
                #expect(html.contains("<h2>Errors</h2>") && html.contains("404 ×\(Int(errors))") && html.contains("is the URL template right?"))
                // `imgbench report` rebuilds them from the directory, the same (its recorded limit).
                let rebuilt = try Fixtures.imgbench(["report", out.path])
                #expect(rebuilt.status == 0, "\(rebuilt.output)")
                #expect(try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8) == markdown)
            }
        }
    }
}
