import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// `imgbench gate` on a baseline recorded in virtual time (issue 34, done means 4): no noise,
    /// so an unchanged build passes every time and a changed policy fails on its counts.
    @Suite("A virtual gate through the binary", .serialized)
    struct VirtualGateTests {
        static let plan = ["--time", "virtual", "--no-decode", "--rows", "400", "--concurrency", "2,6", "--cancel", "offscreen"]
        static let threshold = ["--threshold", "placeholder_mean_ms +5%"]

        @Test("A/A: 20 gates of an unchanged build against a virtual baseline pass, every count equal; a cancel policy broken on purpose fails on its counts")
        func exactPassesAndCatchesAPolicyChange() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("virtual-gate")
                defer { try? FileManager.default.removeItem(at: root) }
                let baseline = root.appendingPathComponent("baseline").path
                let recorded = try Fixtures.imgbench(Self.plan + ["--out", baseline])
                #expect(recorded.status == 0, "\(recorded.output)")
                var passes = 0
                for round in 1...20 {
                    let out = root.appendingPathComponent("aa-\(round)")
                    let gate = try Fixtures.imgbench(["gate", "--baseline", baseline, "--out", out.path] + Self.threshold)
                    // Every count of both cells compared, and all of them equal.
                    let compared = try #require(Self.countsCompared(out), "round \(round): no gate.json")
                    #expect(compared >= 80, "round \(round): only \(compared) counts compared (two cells of about 50)")
                    let exact = gate.output.contains("virtual time, compared exactly: \(compared) of \(compared) counts equal")
                    #expect(gate.status == 0 && exact, "round \(round): \(gate.status)\n\(gate.output)")
                    if gate.status == 0 && exact { passes += 1 }
                }
                #expect(passes == 20)

                // The mutant: offscreen rows cancel only running loads, never queued ones.
                let out = root.appendingPathComponent("mutant")
                let mutant = try Fixtures.imgbench(["gate", "--baseline", baseline, "--out", out.path, "--inject", "cancel=running-only"]
                                                   + Self.threshold)
                #expect(mutant.status == 1, "\(mutant.output)")
                #expect(mutant.output.contains("REGRESSION:") && mutant.output.contains("cancelled_queued unchanged"), "\(mutant.output)")
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("gate.json"))) as? [String: Any]
                #expect(json?["verdict"] as? String == "regression" && json?["time"] as? String == "virtual")
                // The moved count is named with both values: the baseline cancelled queued loads, the
                // mutant none (at the limit of 2; at 6 nothing waits in the queue for long enough).
                let checks = json?["checks"] as? [[String: Any]] ?? []
                let queued = checks.filter { $0["metric"] as? String == "cancelled_queued" }
                #expect(queued.count == 1 && queued.first?["concurrency"] as? String == "2", "\(queued)")
                for check in queued {
                    #expect((check["baseline_median"] as? Double ?? 0) > 0 && check["current_median"] as? Double == 0, "\(check)")
                }
            }
        }

        static func countsCompared(_ out: URL) -> Int? {
            guard let data = try? Data(contentsOf: out.appendingPathComponent("gate.json")),
                  let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return json["counts_compared"] as? Int
        }
    }
}
