import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Whole runs against hostile manifests, sources and output directories: each case crashed,
    /// exited 0 with nothing measured, mixed two runs' files, or printed what it should not.
    @Suite("Hostile runs", .serialized)
    struct HostileRunTests {
        /// A folder nginx serves, with one small photo at /a.jpg.
        static func photoFolder(_ root: URL) throws -> URL {
            let www = root.appendingPathComponent("www")
            try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
            let image = try #require(ImageCorpus.generate(count: 1, seed: 3).images.first)
            try Data(image.bytes).write(to: www.appendingPathComponent("a.jpg"))
            return www
        }

        @Test("a manifest whose sizes sum past Int64 is a one-line usage error naming the line, from a file or a URL, and leaves no --out")
        func manifestSizesPastInt64() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("sizes")
                defer { try? FileManager.default.removeItem(at: root) }
                let www = try Self.photoFolder(root)
                let manifest = "[{\"url\": \"http://127.0.0.1:1/a.jpg\", \"bytes\": 9000000000000000000},\n"
                    + " {\"url\": \"http://127.0.0.1:1/b.jpg\", \"bytes\": 9000000000000000000}]\n"
                try Data(manifest.utf8).write(to: www.appendingPathComponent("manifest.json"))
                let csv = "url,bytes\nhttp://127.0.0.1:1/a.jpg,9000000000000000000\nhttp://127.0.0.1:1/b.jpg,9000000000000000000\n"
                try Data(csv.utf8).write(to: root.appendingPathComponent("m.csv"))
                let nginx = try Nginx(root: www)
                defer { nginx.stop() }
                let out = root.appendingPathComponent("out")
                let file = try Fixtures.imgbench(["--source", www.appendingPathComponent("manifest.json").path, "--rows", "50", "--out", out.path])
                #expect(file.status == 64 && file.output.contains("manifest.json:1: size is not a whole number"), "\(file.output)")
                let table = try Fixtures.imgbench(["--source", root.appendingPathComponent("m.csv").path, "--rows", "50", "--out", out.path])
                #expect(table.status == 64 && table.output.contains("m.csv:2: the size is not a whole number"), "\(table.output)")
                let served = try Fixtures.imgbench(["--source", "\(nginx.baseURL)/manifest.json", "--rows", "50", "--out", out.path])
                #expect(served.status == 2 && served.output.contains("size is not a whole number"), "\(served.output)")
                #expect(!FileManager.default.fileExists(atPath: out.path), "an empty --out was left behind")
            }
        }

        @Test("a 1,000,000-entry manifest with --rows 500 reads only what the feed reaches: bounded memory, a small summary.json")
        func millionEntryManifest() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("million")
                defer { try? FileManager.default.removeItem(at: root) }
                let nginx = try Nginx(root: try Self.photoFolder(root))
                defer { nginx.stop() }
                var text = "[\n"
                text.reserveCapacity(40_000_000)
                for index in 0..<1_000_000 { text += "\"\(nginx.baseURL)/a.jpg?i=\(index)\",\n" }
                text += "\"\(nginx.baseURL)/a.jpg\"]\n"
                let manifest = root.appendingPathComponent("manifest.json")
                try Data(text.utf8).write(to: manifest)
                let out = root.appendingPathComponent("out")
                let run = try Fixtures.imgbench(["--source", manifest.path, "--rows", "500", "--strategies", "threads", "--concurrency", "5",
                                                 "--out", out.path])
                #expect(run.status == 0, "\(run.output)")
                let summary = try ResultsDirectory(path: out.path).runs[0]
                let rss = try #require(summary.value("peak_rss_mb"))
                #expect(rss < 400, "peak RSS \(rss) MB")
                let json = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("summary.json").path)[.size] as? Int ?? .max
                #expect(json < 1_000_000, "summary.json is \(json) bytes")
                #expect(run.output.contains("500 images for 500 rows"), "\(run.output)")
            }
        }

        /// A server that answers the preflight's request with a real image and every later one
        /// with `later` (nil: silence).
        static func preflightAnswered(then later: [UInt8]?) throws -> ScriptedServer {
            let image = try #require(ImageCorpus.generate(count: 1, seed: 3).images.first)
            return try ScriptedServer(lifetime: 90) { _, index in
                index == 0 ? ScriptedServer.answer("200 OK", headers: ["Content-Length: \(image.bytes.count)"], body: image.bytes) : later
            }
        }

        @Test("every image 404 after the preflight: exit 2, the failed loads and HTTP statuses counted as summary.csv counts them")
        func every404() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("all-404")
                defer { try? FileManager.default.removeItem(at: root) }
                let server = try Self.preflightAnswered(then: ScriptedServer.answer("404 Not Found", headers: ["Content-Length: 0"], body: []))
                defer { server.stop() }
                let out = root.appendingPathComponent("out")
                let run = try Fixtures.imgbench(["--source", "\(server.baseURL)/img/{id}.jpg", "--rows", "200", "--strategies", "threads",
                                                 "--cancel", "none", "--out", out.path])
                #expect(run.status == 2, "\(run.output)")
                let summary = try ResultsDirectory(path: out.path).runs[0]
                let loads = try #require(summary.value("errors_http_status")), requests = try #require(summary.value("http_requests"))
                // Rows merged into a failed load are not more failures: the line counts what summary.csv does.
                #expect(run.output.contains("no image could be loaded (failed loads: \(Int(loads)) http_status; "
                                            + "HTTP requests: 404 ×\(Int(requests)) of \(Int(requests))); first: "), "\(run.output)")
            }
        }

        @Test("a source that stops answering after the preflight: exit 2 and why, not 'could not measure' and 0")
        func sourceDiesAfterPreflight() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("dies")
                defer { try? FileManager.default.removeItem(at: root) }
                // The preflight's request is answered; every later one meets silence.
                let server = try Self.preflightAnswered(then: nil)
                defer { server.stop() }
                let out = root.appendingPathComponent("out")
                let run = try Fixtures.imgbench(["--source", "\(server.baseURL)/img/{id}.jpg", "--rows", "300", "--strategies", "threads",
                                                 "--timeout", "30", "--out", out.path])
                #expect(run.status == 2, "\(run.output)")
                #expect(run.output.contains("no image could be loaded"), "\(run.output)")
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.csv").path), "what was measured is written")
                #expect(server.requests > 1)
            }
        }

        @Test("SIGTERM while the reports are written: they are finished, and the exit status is 143, not 0")
        func sigtermWhileWritingReports() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("late-term")
                defer { try? FileManager.default.removeItem(at: root) }
                let out = root.appendingPathComponent("out")
                // Many users' requests make requests.csv and timeseries.csv long enough to write that
                // the signal lands while they are.
                let run = try BackgroundRun(["--clients", "40", "--duration", "2s", "--no-decode", "--network", "loopback",
                                             "--rows", "1000", "--strategies", "events", "--transport", "multi", "--out", out.path],
                                            log: root.appendingPathComponent("stderr.log"))
                let deadline = Date().addingTimeInterval(120)
                func writing() -> Bool {
                    ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).contains { $0 != OutputClaim.fileName }
                }
                while Date() < deadline, run.process.isRunning, !writing() { usleep(1_000) }
                // Stopped while it writes, the signal queued, then continued: the signal surely
                // lands while the reports are being written, however fast this machine writes them.
                kill(run.process.processIdentifier, SIGSTOP)
                kill(run.process.processIdentifier, SIGTERM)
                kill(run.process.processIdentifier, SIGCONT)
                run.process.waitUntilExit()
                #expect(run.process.terminationStatus == 143, "\(run.output)")
                #expect(run.output.contains("stopped by SIGTERM"), "\(run.output)")
                for report in Reports.all {
                    #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(report.fileName).path), "\(report.fileName)")
                }
            }
        }

        @Test("two runs into one --out: the second is refused while the first holds it; a dead run's claim is taken over")
        func outClaimed() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("claim")
                defer { try? FileManager.default.removeItem(at: root) }
                let out = root.appendingPathComponent("out")
                let first = try OutputClaim.claim(out, force: false)
                let claimText = try String(contentsOf: out.appendingPathComponent(OutputClaim.fileName), encoding: .utf8)
                #expect(claimText == "\(getpid())\n")
                // Another process, into the claimed directory: refused even with --force.
                let second = try Fixtures.imgbench(["--rows", "50", "--strategies", "threads", "--out", out.path, "--force"])
                #expect(second.status == 2 && second.output.contains("being written by another imgbench run (pid \(getpid()))"), "\(second.output)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [OutputClaim.fileName], "the refused run wrote nothing")
                // Without --force the emptiness check speaks first (a usage error).
                let third = try Fixtures.imgbench(["--rows", "50", "--out", out.path])
                #expect(third.status == 64, "\(third.output)")
                first.release(wroteResults: false)
                #expect(!FileManager.default.fileExists(atPath: out.path), "an empty directory the claim made goes with it")
                // A claim whose pid is gone (a run killed with SIGKILL) is taken over.
                let gone = Process()
                gone.executableURL = URL(fileURLWithPath: "/bin/true")
                try gone.run()
                gone.waitUntilExit()
                try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
                try Data("\(gone.processIdentifier)\n".utf8).write(to: out.appendingPathComponent(OutputClaim.fileName))
                let taken = try OutputClaim.claim(out, force: true)
                #expect(try String(contentsOf: out.appendingPathComponent(OutputClaim.fileName), encoding: .utf8) == "\(getpid())\n")
                taken.release(wroteResults: true)
            }
        }

        @Test("untrusted text: a huge URL from a manifest is cut in the error line")
        func untrustedText() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("text")
                defer { try? FileManager.default.removeItem(at: root) }
                let long = "http://127.0.0.1:1/" + String(repeating: "a", count: 200_000) + ".jpg"
                let manifest = root.appendingPathComponent("long.json")
                try JSONSerialization.data(withJSONObject: [long]).write(to: manifest)
                let run = try Fixtures.imgbench(["--source", manifest.path, "--rows", "20", "--out", root.appendingPathComponent("out").path])
                #expect(run.status == 2, "\(run.output)")
                let longest = run.output.split(separator: "\n").map(\.utf8.count).max() ?? 0
                #expect(longest < 2_000, "a line of \(longest) bytes")
                #expect(run.output.contains("more bytes)"), "\(run.output.prefix(600))")
            }
        }
    }
}
