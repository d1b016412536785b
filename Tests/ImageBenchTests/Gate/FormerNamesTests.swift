import Foundation
import Testing
@testable import ImageBench

/// Display latency's columns were `latency_*` until 0.6. Baselines recorded then (this project's
/// own gate baseline among them, kept here as a fixture) must still gate, compare and merge.
@Suite("former metric names")
struct FormerNamesTests {
    /// A copy of Reports/baseline/summary.csv as imgbench 0.1.0 wrote it.
    static let legacySummary = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/baseline-0.1.0-summary.csv")

    static func legacyDirectory() throws -> URL {
        let directory = try Fixtures.temporaryDirectory("legacy")
        try FileManager.default.copyItem(at: legacySummary, to: directory.appendingPathComponent("summary.csv"))
        return directory
    }

    @Test("a 0.1.0 baseline's latency_* columns are read as display_*; thresholds in either spelling check them under today's name")
    func gateReadsFormerNames() throws {
        let legacy = try Self.legacyDirectory()
        defer { try? FileManager.default.removeItem(at: legacy) }
        let text = try String(contentsOf: Self.legacySummary, encoding: .utf8)
        #expect(text.hasPrefix("strategy,") && text.contains(",latency_p95_ms,") && !text.contains("display_p95_ms"))
        let directory = try ResultsDirectory(path: legacy.path)
        #expect(directory.header.contains("display_p95_ms") && !directory.header.contains("latency_p95_ms"))
        #expect(directory.runs[0].text("display_p95_ms") == "54.175" && directory.runs[0].value("display_p95_ms") == 54.175)

        let old = try Threshold(parsing: "latency_p95_ms +15%"), new = try Threshold(parsing: "display_p99_ms +25%")
        #expect(old.metric == "display_p95_ms" && old.description == "display_p95_ms +15%")
        let evaluation = GateEvaluation(baseline: directory, current: directory, thresholds: [old, new])
        // Two cells (operation-queue and threads ×5), two checks each, all judged and passing.
        #expect(evaluation.unevaluated.isEmpty && evaluation.checks.count == 4 && !evaluation.regressed, "\(evaluation.unevaluated)")
        #expect(Set(evaluation.checks.map(\.threshold.metric)) == ["display_p95_ms", "display_p99_ms"])
    }

    @Test("compare pairs a 0.1.0 directory's latency_p95_ms with a new one's display_p95_ms; merge and requests.csv read the old names")
    func compareAndMergeReadFormerNames() throws {
        let legacy = try Self.legacyDirectory(), current = try GateTests.directory(p95: [60, 61, 62], hitRates: [0.5, 0.5, 0.5])
        defer { for url in [legacy, current] { try? FileManager.default.removeItem(at: url) } }
        let comparison = ResultsComparison(base: try ResultsDirectory(path: legacy.path), new: try ResultsDirectory(path: current.path))
        let p95 = try #require(comparison.lines.first { $0.metric == "display_p95_ms" && $0.cell.name == "threads ×5" })
        #expect(p95.new == 61 && p95.base > 50 && p95.base < 55, "\(p95)")

        // Merge reads shards' clients.csv rows through RunSummary(row:): a row with the old column names.
        var written = ReportTests.summary(strategy: "gcd", concurrency: 5, p95: 54.175, hitRate: 50)
        written.display.p99 = 79.167
        let row = Dictionary(uniqueKeysWithValues: written.fields.map { field in
            (field.name.replacingOccurrences(of: "display_", with: "latency_"), field.value.formatted)
        })
        #expect(row["latency_p95_ms"] == "54.175" && row["display_p95_ms"] == nil)
        let summary = try RunSummary(row: row)
        #expect(summary.display.p95 == 54.175 && summary.display.p99 == 79.167)

        let record = try #require(RequestRecord(row: ["request": "3", "row": "3", "image": "3", "source": "network", "outcome": "displayed", "visible_frame": "10",
                                                       "latency_ms": "12.5"]))
        #expect(record.latency == 12_500_000)
    }
}
