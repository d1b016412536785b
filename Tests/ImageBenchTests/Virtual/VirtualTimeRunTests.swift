import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// `--time virtual` through the binary: the whole run (matrix, reports) on a virtual clock,
    /// each run a process of its own (so nothing may depend on a process's hash seed).
    @Suite("Virtual time through the binary", .serialized)
    struct VirtualTimeRunTests {
        @Test("two --time virtual runs of one plan write the same summary.csv to the byte; a fling's cancels, HTTP/2's one connection, no host in the numbers")
        func sameSummaryTwice() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("virtual-time")
                defer { try? FileManager.default.removeItem(at: root) }
                var written: [Data] = []
                for index in 0..<2 {
                    let out = root.appendingPathComponent("run\(index)")
                    let run = try Fixtures.imgbench(["--time", "virtual", "--no-decode", "--network", "3g", "--rows", "1000",
                                                     "--cancel", "none,offscreen", "--http", "1.1,2", "--out", out.path])
                    #expect(run.status == 0, "\(run.output)")
                    written.append(try Data(contentsOf: out.appendingPathComponent("summary.csv")))
                    // Said as it starts, atop every human output and in summary.json: the figures are a model's.
                    #expect(run.output.contains("imgbench: --time virtual: the network is modelled"), "\(run.output)")
                    for report in ["report.md", "report.html"] {
                        let text = try String(contentsOf: out.appendingPathComponent(report), encoding: .utf8)
                        let opening = try #require(text.range(of: "Virtual time (--time virtual)"), "\(report) does not say virtual time")
                        #expect(text.distance(from: text.startIndex, to: opening.lowerBound) < 2_000, "\(report): said late")
                        // A suggestion the run would refuse (--budget) is never made.
                        #expect(!text.contains("--budget"), "\(report)")
                    }
                    let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json"))) as? [String: Any]
                    #expect(summary?["time"] as? String == "virtual")
                }
                #expect(written[0] == written[1], "the two runs' summary.csv differ")
                // The host's own time per request goes into every modelled answer, and the
                // opening says so.
                let delayed = root.appendingPathComponent("delayed")
                let run = try Fixtures.imgbench(["--time", "virtual", "--no-decode", "--network", "3g", "--rows", "1000",
                                                 "--cancel", "none,offscreen", "--http", "1.1,2", "--host-delay-ms", "0.7", "--out", delayed.path])
                #expect(run.status == 0, "\(run.output)")
                let report = try String(contentsOf: delayed.appendingPathComponent("report.md"), encoding: .utf8)
                #expect(report.contains("with the host's own 0.700 ms per request (--host-delay-ms)"), "\(report.prefix(600))")
                #expect(try Data(contentsOf: delayed.appendingPathComponent("summary.csv")) != written[0], "the delay moved nothing")
                // The same files said to be real: compare refuses to put the model's figures beside
                // them, even when told to allow a configuration change.
                let real = root.appendingPathComponent("real")
                try FileManager.default.copyItem(at: root.appendingPathComponent("run0"), to: real)
                let summaryFile = real.appendingPathComponent("summary.json")
                let virtualText = try String(contentsOf: summaryFile, encoding: .utf8)
                #expect(virtualText.contains("\"time\" : \"virtual\""))
                try virtualText.replacingOccurrences(of: "\"time\" : \"virtual\"", with: "\"time\" : \"real\"")
                    .write(to: summaryFile, atomically: true, encoding: .utf8)
                let virtual = root.appendingPathComponent("run0").path
                for extra in [[], ["--allow-config-change"]] {
                    for command in [["compare", real.path, virtual],
                                    ["gate", "--baseline", real.path, "--current", virtual, "--threshold", "placeholder_mean_ms +15%"]] {
                        let refused = try Fixtures.imgbench(command + extra)
                        #expect(refused.status == 2 && refused.output.contains("virtual time"), "\(command[0]) \(extra): \(refused.status) \(refused.output)")
                    }
                }
                let runs = try ResultsDirectory(path: root.appendingPathComponent("run0").path).runs
                #expect(runs.count == 4)
                for run in runs {
                    let cell = "\(run.text("http") ?? "?") \(run.text("cancel") ?? "?")"
                    #expect(run.text("strategy") == "events" && run.value("requests") ?? 0 >= 900, "\(cell)")
                    #expect(run.value("host_late_frames") == 0 && run.value("dropped_frames") == 0 && run.value("cpu_user_s") == 0, "\(cell)")
                    #expect((run.value("displayed") ?? 0) > 0 && (run.value("network_fetches") ?? 0) > 0, "\(cell)")
                    let cancelled = run.value("cancelled_inflight") ?? -1
                    #expect(run.text("cancel") == "none" ? cancelled == 0 : cancelled > 0, "\(cell): \(cancelled) cancelled in flight")
                    if run.text("http") == "2" { #expect(run.value("connections_opened") == 1, "\(cell)") }
                }
                // Over HTTP/1.1 each in-flight cancel costs its connection, as on the real client.
                let http1 = try #require(runs.first { $0.text("http") == "1.1" && $0.text("cancel") == "offscreen" })
                #expect((http1.value("connections_opened") ?? 0) >= (http1.value("cancelled_inflight") ?? 1))
            }
        }

        @Test("what a virtual run does not model yet is one line and exit 64, before anything runs")
        func refusals() async throws {
            try await onOwnThread { try Self.refusalsBlocking() }
        }

        static func refusalsBlocking() throws {
            let cases: [([String], String)] = [
                (["--time", "virtual"], "--no-decode"),
                (["--time", "virtual", "--no-decode", "--clients", "2"], "one user"),
                (["--time", "virtual", "--no-decode", "--strategies", "threads"], "--strategies events"),
                (["--time", "virtual", "--no-decode", "--faults", "error=5%"], "--faults"),
                (["--time", "virtual", "--no-decode", "--decode-concurrency", "2,4"], "--decode-concurrency"),
                (["--time", "sometimes"], "--time"),
                (["--no-decode", "--host-delay-ms", "0.6"], "--host-delay-ms models a virtual run's host"),
                (["--time", "virtual", "--no-decode", "--host-delay-ms", "101"], "--host-delay-ms"),
            ]
            for (arguments, named) in cases {
                let run = try Fixtures.imgbench(arguments + ["--rows", "50"])
                #expect(run.status == 64 && run.output.contains(named), "\(arguments): \(run.status) \(run.output)")
                #expect(run.output.split(separator: "\n").count <= 2, "\(arguments): \(run.output)")
            }
        }
    }
}
