import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// `imgbench corpus` output served by nginx, read back through `--source` as a URL template and
    /// as a manifest: every image fetched once, every fetch displayed.
    @Suite("The corpus on nginx, through --source", .serialized)
    struct CorpusSourceTests {
        @Test("--source img/{id}.jpg and --source manifest.json against nginx: network fetches equal the distinct images displayed")
        func corpusOnNginx() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("corpus-nginx")
                defer { try? FileManager.default.removeItem(at: root) }
                let port = try Nginx.freePort()
                let corpus = root.appendingPathComponent("corpus")
                let written = try Fixtures.imgbench(["corpus", "--out", corpus.path, "--images", "20", "--jpeg-only",
                                                         "--base-url", "http://127.0.0.1:\(port)"])
                try #require(written.status == 0, "\(written.output)")
                let nginx = try Nginx(root: corpus, port: port)
                defer { nginx.stop() }
                // nginx is not imgbench: a run names no user to it (`X-Imgbench-Client`).
                #expect(try Benchmark.preflight("http://127.0.0.1:\(port)/img/0.jpg", limits: FetchLimits()) == false)
                // A template, the manifest file, and the same manifest by its URL (fetched before the run).
                let sources = ["http://127.0.0.1:\(port)/img/{id}.jpg", corpus.appendingPathComponent("manifest.json").path,
                               "http://127.0.0.1:\(port)/manifest.json"]
                for (index, source) in sources.enumerated() {
                    let out = root.appendingPathComponent("results-\(index)")
                    // Slow scrolling and no cancellation: every load started is a load displayed.
                    let run = try Fixtures.imgbench(["--source", source, "--images", "20", "--rows", "40", "--scroll", "browse",
                                                         "--cancel", "none", "--strategies", "threads", "--out", out.path])
                    #expect(run.status == 0, "\(source): \(run.output)")
                    let summary = try #require(try ResultsDirectory(path: out.path).runs.first)
                    let rows = CSVTable.parse(try String(contentsOf: out.appendingPathComponent("requests.csv"), encoding: .utf8))
                    let header = rows[0]
                    let requests = rows.dropFirst().filter { $0.count == header.count }.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
                    let displayed = Set(requests.filter { $0["outcome"] == "displayed" }.compactMap { $0["url"] })
                    #expect(summary.value("network_fetches") == Double(displayed.count), "\(source): \(summary.text("network_fetches") ?? "?") vs \(displayed.count)")
                    #expect(displayed.count > 5 && summary.value("errors") == 0)
                    #expect(displayed.allSatisfy { $0.hasPrefix("http://127.0.0.1:\(port)/") })
                }
            }
        }
    }
}
