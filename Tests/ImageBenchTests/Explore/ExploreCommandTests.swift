import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// `imgbench explore` through the binary: what it refuses, and what it prints and writes.
    @Suite("Explore through the binary", .serialized)
    struct ExploreCommandTests {
        @Test("a mistake is one line and exit 64 before anything runs; a model-only exploration prints its ranking and writes explore.md")
        func command() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("explore-command")
                defer { try? FileManager.default.removeItem(at: root) }
                for (words, reason) in [(["--confirm", "11"], "--confirm '11'"), (["--time", "real"], "--time is not taken"),
                                        (["--current", "--concurrency 2,3"], "one value per flag"),
                                        // A model alone decodes with a calibration's decode times only.
                                        (["--confirm", "0"], "(or --no-decode)")] {
                    let refused = try Fixtures.imgbench(["explore"] + words + ["--out", root.appendingPathComponent("refused").path])
                    #expect(refused.status == 64 && refused.output.split(separator: "\n").count == 1, "\(words): \(refused.status) \(refused.output)")
                    #expect(refused.output.hasPrefix("imgbench explore: ") && refused.output.contains(reason), "\(refused.output)")
                }
                #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("refused").path))
                let out = root.appendingPathComponent("explored")
                let run = try Fixtures.imgbench(["explore", "--rows", "150", "--concurrency", "2,3", "--cancel", "none,offscreen", "--confirm", "0",
                                                 "--current", "--concurrency 2 --cancel none", "--no-decode", "--out", out.path])
                #expect(run.status == 0 && run.output.contains("Results: \(out.path)/ (explore.md, model-wifi/)"), "\(run.output)")
                let written = try String(contentsOf: out.appendingPathComponent("explore.md"), encoding: .utf8)
                #expect(written.hasPrefix("Explored 4 combinations in virtual time (wifi: 4 in ") && run.output.contains(written), "\(written)")
                #expect(written.contains("×2 cancel=none") && written.contains("(your settings)") && written.contains("Not confirmed (--confirm 0)"))
                #expect(try ResultsDirectory(path: out.appendingPathComponent("model-wifi").path).runs.count == 4)
            }
        }
    }
}
