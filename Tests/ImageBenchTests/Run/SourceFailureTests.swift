import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Sources that go away: a server killed mid-run, and one that was never there.
    @Suite("Sources that fail", .serialized)
    struct SourceFailureTests {
        /// nginx serving one generated photo for every row's own URL (`/row/N.jpg`).
        static func photoServer(in root: URL, seed: UInt64) throws -> Nginx {
            let www = root.appendingPathComponent("www")
            try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
            let size = PixelSize(width: 320, height: 240)
            try Data(try ImageEncoder.jpeg(PhotoSynthesizer.rgb(size: size, seed: seed), size: size, channels: 3))
                .write(to: www.appendingPathComponent("photo.jpg"))
            return try Nginx(root: www, extra: "location /row/ { rewrite ^ /photo.jpg break; }",
                             accessLog: root.appendingPathComponent("access.log"))
        }

        @Test("nginx killed mid-run: the run completes with connection errors counted, writes its reports, exits 0")
        func serverKilledMidRun() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("killed-source")
                defer { try? FileManager.default.removeItem(at: root) }
                let nginx = try Self.photoServer(in: root, seed: 4)
                let out = root.appendingPathComponent("results")
                let imgbench = try BackgroundRun(["--source", "\(nginx.baseURL)/row/{row}.jpg", "--rows", "1500", "--strategies", "threads",
                                             "--out", out.path], log: root.appendingPathComponent("stderr.log"))
                let process = imgbench.process
                // Killed mid-run: once the run has had 30 images from it (rows 1500 keep it going).
                try #require(imgbench.waitUntilScrolling {
                    answeredRequests(in: root.appendingPathComponent("access.log"), containing: "/row/") >= 30
                }, "\(imgbench.output)")
                nginx.kill()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(imgbench.output)")
                let run = try #require(try ResultsDirectory(path: out.path).runs.first)
                #expect(run.value("displayed") ?? 0 > 0)
                #expect(run.value("errors_connection") ?? 0 > 0, "\(run)")
                // It kept scrolling to the end (a loaded machine may drop a frame or two, and their rows).
                #expect(run.value("rows_visited") ?? 0 > 1450, "\(run.text("rows_visited") ?? "?") rows visited")
                for file in Reports.all.map(\.fileName) {
                    #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(file)")
                }
            }
        }

        @Test("a server gone during one strategy's run: that cell is not ranked, starred or recommended")
        func serverGoneForOneCell() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("gone-for-one")
                defer { try? FileManager.default.removeItem(at: root) }
                let nginx = try Self.photoServer(in: root, seed: 5)
                let out = root.appendingPathComponent("results")
                let imgbench = try BackgroundRun(["--source", "\(nginx.baseURL)/row/{row}.jpg", "--rows", "600", "--strategies", "threads,gcd",
                                                  "--out", out.path], log: root.appendingPathComponent("stderr.log"))
                // threads runs first and whole; the server dies as gcd starts.
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline, imgbench.process.isRunning, !imgbench.output.contains("[1/2]") {
                    Thread.sleep(forTimeInterval: 0.02)
                }
                nginx.kill()
                imgbench.process.waitUntilExit()
                #expect(imgbench.process.terminationStatus == 0, "\(imgbench.output)")
                let runs = try ResultsDirectory(path: out.path).runs
                let gcd = try #require(runs.first { $0.cell.strategy.name == "gcd" })
                #expect(gcd.value("errors_connection") ?? 0 > gcd.value("images_decoded") ?? 0, "\(gcd)")
                let threads = try #require(runs.first { $0.cell.strategy.name == "threads" })
                let report = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
                #expect(!report.contains("Recommended: gcd"), "\(report.prefix(600))")
                #expect(report.contains("gcd ×5 (not ranked: most loads failed") || report.contains("gcd ×5: not ranked: most loads failed"),
                        "\(report.prefix(600))")
                // A loaded test machine (the other suites run beside this one) can make the loop wake
                // late for threads too; then nothing may be recommended, and the verdict must say why.
                // Errors first: the verdict opens with the cell whose requests failed, and why.
                // (Nearly all: a load or two of gcd's may get through before the server is gone.)
                #expect(report.contains("**gcd ×5: not ranked: ") && report.contains("% of HTTP requests failed (connection ×"), "\(report.prefix(600))")
                if threads.text("host_overloaded") == "0" {
                    // The only cell ranked is measured, not recommended over anything.
                    #expect(report.contains("- Measured: threads at a limit of 5, the only cell ranked"), "\(report.prefix(600))")
                } else {
                    #expect(report.contains("- Verdict: could not measure") && report.contains("threads ×5: not ranked: host overloaded"),
                            "\(report.prefix(600))")
                }
                let gcdRow = try #require(report.split(separator: "\n").first { $0.hasPrefix("| gcd") })
                #expect(gcdRow.hasPrefix("| gcd (not ranked)") && !gcdRow.contains("**"), "\(gcdRow)")
            }
        }

        @Test("a source where nothing listens: exit 2 with the reason, a refused connection (not a wait for a timeout)")
        func nothingListens() async throws {
            try await onOwnThread {
                let port = try Nginx.freePort()
                let out = try Fixtures.temporaryDirectory("nothing-listens")
                defer { try? FileManager.default.removeItem(at: out) }
                let results = out.appendingPathComponent("results")
                let run = try Fixtures.imgbench(["--source", "http://127.0.0.1:\(port)/img/{id}.jpg", "--rows", "500",
                                                     "--out", results.path])
                #expect(run.status == 2, "\(run.output)")
                #expect(!FileManager.default.fileExists(atPath: results.path), "an empty --out was left behind")
                #expect(run.output.contains("cannot reach http://127.0.0.1:\(port)/img/"), "\(run.output)")
                // Refused at once, by curl's connect, not given up on after the check's timeout: a
                // fact of the output, where a wall-clock bound would fail on a busy host.
                #expect(run.output.contains("Couldn't connect to server") && !run.output.contains("did not answer"), "\(run.output)")
            }
        }
    }
}
