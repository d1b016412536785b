import Foundation
import Testing
@testable import ImageBench

/// `compare`'s pairing: named settings are what a comparison is about; a different trace is not.
@Suite("compare pairs runs of the same trace")
struct PlanPairingTests {
    static func plan(_ flags: [String: String]) throws -> BenchmarkPlan {
        var options = RunOptions()
        options["rows"] = "300"
        options["strategies"] = "threads"
        for (name, value) in flags { options[name] = value }
        return try options.plan()
    }

    @Test("settings that can be dimensions are named; the seed, rows or network make the runs unpaired")
    func pairing() throws {
        let offscreen = try Self.plan([:])
        let none = try Self.plan(["cancel": "none", "prefetch": "10"])
        let paired = PlanPairing(base: offscreen, new: none)
        #expect(paired.named == ["--cancel offscreen → none", "--prefetch 0 → 10"] && paired.unpaired.isEmpty, "\(paired)")
        // Same settings: nothing to name, nothing unpaired.
        #expect(PlanPairing(base: offscreen, new: offscreen) == PlanPairing(base: offscreen, new: try Self.plan([:])))
        #expect(PlanPairing(base: offscreen, new: offscreen).named.isEmpty && PlanPairing(base: offscreen, new: offscreen).unpaired.isEmpty)
        // Another seed is another trace: named settings still named, and the seed makes it unpaired.
        let elsewhere = PlanPairing(base: offscreen, new: try Self.plan(["cancel": "none", "seed": "2"]))
        #expect(elsewhere.named == ["--cancel offscreen → none"] && elsewhere.unpaired.count == 1
                && elsewhere.unpaired[0].contains("seed"), "\(elsewhere)")
        // A list on one side is named as the list.
        let list = PlanPairing(base: offscreen, new: try Self.plan(["transport": "blocking,multi"]))
        #expect(list.named == ["--transport blocking → blocking,multi"] && list.unpaired.isEmpty, "\(list)")
    }

    @Test("by default a comparison shows the metrics that fit a screen; all shows every shared one")
    func fitsAScreen() throws {
        let base = try GateTests.directory(p95: [100, 101, 99, 100], hitRates: [0.5, 0.5, 0.49, 0.51])
        let new = try GateTests.directory(p95: [130, 131, 129, 130], hitRates: [0.6, 0.6, 0.61, 0.59])
        defer { for url in [base, new] { try? FileManager.default.removeItem(at: url) } }
        let (a, b) = (try ResultsDirectory(path: base.path), try ResultsDirectory(path: new.path))
        let everything = ResultsComparison(base: a, new: b)
        let screen = ResultsComparison(base: a, new: b, all: false)
        let metrics = Set(screen.lines.map(\.metric))
        #expect(metrics.isSubset(of: Set(ResultsComparison.onScreen)) && metrics.contains("display_p95_ms") && metrics.contains("memory_hit_rate"),
                "\(metrics)")
        #expect(everything.lines.count > screen.lines.count, "\(everything.lines.count) against \(screen.lines.count)")
    }
}
