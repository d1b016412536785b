import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// `imgbench serve` as a user runs it: curl fetches from it, the profile's delay is applied, and
    /// Ctrl-C stops it cleanly.
    @Suite("imgbench serve", .serialized)
    struct ServeCommandTests {
        @Test("answers curl on 127.0.0.1 with its manifest and the profile's delay plus a new connection's round trip (within 10%), stops cleanly on SIGINT")
        func serve() async throws {
            let curl = try #require(["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }, "curl")
            try await onOwnThread {
                let directory = try Fixtures.temporaryDirectory("serve")
                defer { try? FileManager.default.removeItem(at: directory) }
                let server = try BackgroundRun(["serve", "--port", "0", "--images", "10", "--network", "latency=300ms,jitter=0ms",
                                                "--log", "requests"], log: directory.appendingPathComponent("stderr.log"),
                                               standardOutput: directory.appendingPathComponent("stdout.log"))
                let url = try Self.address(of: server)
                func curlOutput(_ arguments: [String]) throws -> String {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: curl)
                    process.arguments = ["-s"] + arguments
                    let pipe = Pipe()
                    process.standardOutput = pipe
                    try process.run()
                    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitUntilExit()
                    return text
                }
                // The server lists what it serves; the first five images from its manifest.
                let manifest = try Manifest.parse(Data(try curlOutput(["\(url)/manifest.json"]).utf8), name: "manifest.json")
                #expect(manifest.count == 10)
                var firstByte: [Double] = []
                for entry in manifest.prefix(5) {
                    let text = try curlOutput(["-o", "/dev/null", "-w", "%{http_code} %{time_starttransfer}", entry.url])
                    let fields = text.split(separator: " ")
                    #expect(fields.first == "200", "\(text)")
                    firstByte.append(Double(fields.last ?? "") ?? 0)
                }
                // A path with an encoded newline and escape: logged on one line, the control bytes escaped.
                _ = try curlOutput(["-o", "/dev/null", "\(url)/a%0aFAKE-LINE%1b%5b31m.jpg"])
                let median = firstByte.sorted()[2]
                // Each curl is a new connection: the profile's 0.3 s and its TCP handshake's round trip.
                #expect(median >= 0.6 && median <= 0.66, "time to first byte \(firstByte) s, profile 0.3 s and a 0.3 s handshake")
                kill(server.process.processIdentifier, SIGINT)
                server.process.waitUntilExit()
                #expect(server.process.terminationStatus == 0)
                #expect(server.output.contains("stopped after 7 requests"), "\(server.output)")
                let log = try String(contentsOf: directory.appendingPathComponent("stdout.log"), encoding: .utf8)
                #expect(log.contains("/a\\x0aFAKE-LINE\\x1b[31m.jpg 404"), "\(log)")
                #expect(!log.split(separator: "\n").contains { $0.hasPrefix("FAKE-LINE") } && !log.contains("\u{1B}"), "\(log)")
            }
        }

        /// The address `imgbench serve` printed when it began listening (`https://` with --tls).
        static func address(of server: BackgroundRun) throws -> String {
            let deadline = Date().addingTimeInterval(60)
            var base: String?
            while Date() < deadline, server.process.isRunning, base == nil {
                base = server.output.split(separator: " ")
                    .first { ($0.hasPrefix("http://127.0.0.1:") || $0.hasPrefix("https://127.0.0.1:")) && $0.hasSuffix("/") }
                    .map { String($0.dropLast()) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return try #require(base, "no address in: \(server.output)")
        }

        @Test("under ulimit -n 512, 1,000 half-open connections do not stop it answering wrk")
        func halfOpenFlood() async throws {
            let wrk = try #require(["/usr/bin/wrk", "/usr/local/bin/wrk"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                   "wrk (scripts/setup --test installs it)")
            try await onOwnThread {
                // This process needs a descriptor per half-open peer.
                var limit = rlimit()
                getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
                limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, 4_096))
                setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
                try #require(limit.rlim_cur >= 1_200, "this test needs 1,200 open files (hard limit \(limit.rlim_max))")
                let directory = try Fixtures.temporaryDirectory("serve-flood")
                defer { try? FileManager.default.removeItem(at: directory) }
                // A long request timeout: the cap, not the timeout, must keep it answering.
                let server = try BackgroundRun(["serve", "--port", "0", "--images", "10", "--network", "loopback", "--request-timeout", "120"],
                                               log: directory.appendingPathComponent("stderr.log"), descriptorLimit: 512)
                defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
                let url = try Self.address(of: server)
                #expect(server.output.contains("at most 448 connections"), "\(server.output)")
                let port = try #require(Int(url.split(separator: ":").last ?? ""))
                var peers: [RawConnection] = []
                defer { peers.forEach { $0.close() } }
                for _ in 0..<1_000 {
                    let peer = try RawConnection(port: port)
                    peer.send("GET /img/0.jpg HTTP/1.1\r\nHost: x\r\n")  // never finished
                    peers.append(peer)
                }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: wrk)
                // Short and light: wrk takes a core while it runs, and other suites run beside this one.
                process.arguments = ["-t1", "-c4", "-d1s", "\(url)/manifest.json"]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                let report = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                let rate = report.split(separator: "\n").first { $0.hasPrefix("Requests/sec:") }
                    .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
                #expect(rate > 50 && !report.contains("Non-2xx"), "\(report)")
                #expect(server.process.isRunning, "\(server.output)")
                #expect(peers[0].readToEnd().closed, "the oldest half-open peer still holds a descriptor")
                kill(server.process.processIdentifier, SIGINT)
                server.process.waitUntilExit()
                #expect(server.process.terminationStatus == 0, "\(server.output)")
            }
        }
    }
}
