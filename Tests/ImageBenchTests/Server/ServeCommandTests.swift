import Foundation
import Testing
@testable import ImageBench

/// `imgbench serve` as a user runs it: curl fetches from it, the profile's delay is applied, and
/// Ctrl-C stops it cleanly.
@Suite("imgbench serve")
struct ServeCommandTests {
    @Test("answers curl on 127.0.0.1 with its manifest and the profile's delay (within 20%), stops cleanly on SIGINT")
    func serve() async throws {
        let curl = try #require(["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }, "curl")
        try await onOwnThread {
            let directory = try Fixtures.temporaryDirectory("serve")
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try BackgroundRun(["serve", "--port", "0", "--images", "10", "--network", "latency=300ms,jitter=0ms"],
                                           log: directory.appendingPathComponent("stderr.log"))
            let deadline = Date().addingTimeInterval(60)
            var base: String?
            while Date() < deadline, server.process.isRunning, base == nil {
                base = server.output.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") && $0.hasSuffix("/") }.map { String($0.dropLast()) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            let url = try #require(base, "no address in: \(server.output)")
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
            let median = firstByte.sorted()[2]
            #expect(median >= 0.3 && median <= 0.36, "time to first byte \(firstByte) s, profile 0.3 s")
            kill(server.process.processIdentifier, SIGINT)
            server.process.waitUntilExit()
            #expect(server.process.terminationStatus == 0)
            #expect(server.output.contains("stopped after 6 requests"), "\(server.output)")
        }
    }
}
