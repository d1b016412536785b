import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Ctrl-C and SIGTERM through the real binary: the run stops, the reports measured so far are
    /// written and marked partial, and the exit status says which signal it was.
    @Suite("Interrupted runs", .serialized)
    struct InterruptTests {
        static func interrupt(with signal: Int32) throws -> (status: Int32, summary: [String: Any], seconds: Double) {
            let output = try Fixtures.temporaryDirectory("interrupted")
            let run = try BackgroundRun(["--rows", "5000", "--images", "60", "--strategies", "threads,gcd", "--network", "loopback",
                                         "--out", output.appendingPathComponent("results").path],
                                        log: output.appendingPathComponent("stderr.log"))
            let process = run.process
            run.waitUntilScrolling(thenFor: 1.5)
            let sent = Date()
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let seconds = Date().timeIntervalSince(sent)
            let data = try Data(contentsOf: output.appendingPathComponent("results/summary.json"))
            try? FileManager.default.removeItem(at: output)
            return (process.terminationStatus, try JSONSerialization.jsonObject(with: data) as! [String: Any], seconds)
        }

        @Test("SIGINT mid-run: partial reports, exit 130; SIGTERM: exit 143")
        func signals() async throws {
            try await onOwnThread {
                for (signal, status, name) in [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM")] {
                    let result = try Self.interrupt(with: signal)
                    #expect(result.status == status, "\(name)")
                    #expect(result.summary["partial"] as? Bool == true && result.summary["stopped_by"] as? String == name)
                    let runs = try #require(result.summary["runs"] as? [[String: Any]])
                    // Stopped in the first run: it is kept, marked partial, and the second never started.
                    #expect(runs.count == 1 && runs[0]["partial"] as? Int == 1, "\(runs.map { $0["strategy"] ?? "?" })")
                    #expect((runs[0]["requests"] as? Int ?? 0) > 0)
                    // A hang, not speed: the design's bound is 2 s; a loaded machine may take longer.
                    #expect(result.seconds < 15, "\(name) took \(result.seconds) s to exit")
                }
            }
        }

        @Test("SIGINT while the corpus is generated: exit 130, the reports say partial and stopped by SIGINT, nothing measured")
        func duringSetUp() async throws {
            try await onOwnThread {
                let output = try Fixtures.temporaryDirectory("interrupted-set-up")
                defer { try? FileManager.default.removeItem(at: output) }
                // 10,000 images take several seconds to generate: the signal lands among them.
                // Without the corpus cache, which could load them before the signal arrives.
                let run = try BackgroundRun(["--rows", "20000", "--images", "10000", "--no-corpus-cache",
                                             "--out", output.appendingPathComponent("results").path],
                                            log: output.appendingPathComponent("stderr.log"))
                let deadline = Date().addingTimeInterval(60)
                while !run.output.contains("generating") && run.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
                kill(run.process.processIdentifier, SIGINT)
                run.process.waitUntilExit()
                #expect(run.process.terminationStatus == 130, "\(run.output)")
                #expect(!run.output.contains("scroll trace"), "it stopped before scrolling: \(run.output)")
                let data = try Data(contentsOf: output.appendingPathComponent("results/summary.json"))
                let summary = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                #expect(summary["partial"] as? Bool == true && summary["stopped_by"] as? String == "SIGINT", "\(summary["stopped_by"] ?? "")")
                #expect((summary["runs"] as? [Any])?.isEmpty == true)
            }
        }

        @Test("SIGTERM while the source is checked (a server that never answers): exit 143 at once, not the check's 5 s")
        func duringPreCheck() async throws {
            try await onOwnThread {
                let output = try Fixtures.temporaryDirectory("interrupted-pre-check")
                defer { try? FileManager.default.removeItem(at: output) }
                let silent = try Listener()  // accepts nothing, answers nothing: the check waits
                defer { silent.close() }
                let run = try BackgroundRun(["--source", "http://127.0.0.1:\(silent.port)/img/{id}.jpg", "--rows", "100",
                                             "--out", output.appendingPathComponent("results").path],
                                            log: output.appendingPathComponent("stderr.log"))
                let deadline = Date().addingTimeInterval(30)
                while !run.output.contains("source http://") && run.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
                Thread.sleep(forTimeInterval: 0.3)
                kill(run.process.processIdentifier, SIGTERM)
                run.process.waitUntilExit()
                // Without the stop, the check would have ended at 5 s with exit 2 ("did not answer").
                #expect(run.process.terminationStatus == 143, "\(run.output)")
                let data = try Data(contentsOf: output.appendingPathComponent("results/summary.json"))
                let summary = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                #expect(summary["partial"] as? Bool == true && summary["stopped_by"] as? String == "SIGTERM")
            }
        }
    }
}
