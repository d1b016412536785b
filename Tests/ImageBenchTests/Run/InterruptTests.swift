import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Ctrl-C and SIGTERM through the real binary: the run stops, the reports measured so far are
    /// written and marked partial, and the exit status says which signal it was.
    @Suite("Interrupted runs", .serialized)
    struct InterruptTests {
        static func interrupt(with signal: Int32) throws -> (status: Int32, summary: [String: Any]) {
            let output = try Fixtures.temporaryDirectory("interrupted")
            let run = try BackgroundRun(["--rows", "5000", "--images", "60", "--strategies", "threads,gcd", "--network", "loopback",
                                         "--out", output.appendingPathComponent("results").path],
                                        log: output.appendingPathComponent("stderr.log"))
            let process = run.process
            // Signalled once the first run has drawn some frames (0.05 CPU-s of the child's since it
            // began to scroll; 60 images from memory on loopback cost it about 0.02 CPU-s a second):
            // it has requests to keep, and its 37 s trace is far from over.
            try #require(run.waitUntilScrolling(), "it never scrolled: \(run.output)")
            let scrolling = run.cpuSeconds ?? 0
            try #require(waitUntil(deadline: 60) { !process.isRunning || (run.cpuSeconds ?? 0) >= scrolling + 0.05 } && process.isRunning,
                         "\(run.output)")
            kill(process.processIdentifier, signal)
            // A hang, not speed, is what this catches: a deadline only a run that ignores the
            // signal reaches (the design's 2 s is not a wall-clock bound a shared host can keep).
            let exited = waitUntil(deadline: 60) { !process.isRunning }
            if !exited { process.terminate() }
            process.waitUntilExit()
            try #require(exited, "still running 60 s after the signal")
            let data = try Data(contentsOf: output.appendingPathComponent("results/summary.json"))
            try? FileManager.default.removeItem(at: output)
            return (process.terminationStatus, try JSONSerialization.jsonObject(with: data) as! [String: Any])
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
                // The check has connected to the silent server and waits for an answer.
                try #require(waitUntil { silent.hasPendingConnection || !run.process.isRunning } && run.process.isRunning, "\(run.output)")
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
