import Foundation
import Testing
@testable import ImageBench

/// The format table (`--formats`): a row per format, costs with their intervals over repeats.
@Suite("The format table")
struct FormatTableTests {
    @Test("one row per format of each cell; costs per displayed image with the repeats' interval; nothing with one format")
    func rows() throws {
        func run(_ format: CorpusFormat, megabytes: Double, cpu: Double) -> RunResult {
            FormatVerdictTests.run(format, mean: 10, cpu: cpu, megabytes: megabytes)
        }
        let results = [run(.only(.jpeg), megabytes: 10, cpu: 1), run(.only(.avif), megabytes: 4, cpu: 2),
                       run(.only(.jpeg), megabytes: 12, cpu: 1), run(.only(.avif), megabytes: 5, cpu: 3)]
        let table = FormatTable(ReportTests.benchmark(results))
        #expect(table.rows.map { $0[1] } == ["jpeg", "avif"] && table.rows.allSatisfy { $0[0] == "threads ×5" })
        // 22 MB over 800 displayed images is 27.5 kB, the runs' 25 and 30 kB bracket it; CPU 2 s / 800 = 2.50 ms.
        #expect(table.rows[0][2] == "27.5 (25.0–30.0)" && table.rows[0][8] == "2.50 (2.50–2.50)", "\(table.rows[0])")
        #expect(table.rows[1][2] == "11.2 (10.0–12.5)" && table.rows[1][8] == "6.25 (5.00–7.50)", "\(table.rows[1])")
        // No decodes recorded: no decode percentile is invented.
        #expect(table.rows[0][3] == "–")
        #expect(table.markdown.hasPrefix("## Formats\n\n| cell | format |") && table.text.hasPrefix("Formats\ncell"))
        #expect(FormatTable(ReportTests.benchmark([run(.only(.jpeg), megabytes: 10, cpu: 1)])).text.isEmpty)
        // report.html carries the same table.
        let html = try HTMLReport().render(ReportTests.benchmark(results))
        #expect(html.contains("<h2>Formats</h2>") && html.contains("<td>avif</td><td>11.2 (10.0–12.5)</td>"))
    }

    @Test("compare keeps formats apart: each format's cell is judged on its own requests")
    func compareByFormat() throws {
        func directory(avifMean: Double) throws -> URL {
            let url = try Fixtures.temporaryDirectory("compare-formats")
            let results = [FormatVerdictTests.run(.only(.jpeg), mean: 10), FormatVerdictTests.run(.only(.avif), mean: avifMean)]
            try Reports.write(BenchmarkResults(plan: BenchmarkPlan(settings: RunSettings(), strategies: [.threads], concurrencies: [5],
                                                                   formats: [.only(.jpeg), .only(.avif)]),
                                               results: results, corpusImages: 10, corpusBytes: 1_000, serverURL: "http://127.0.0.1:1",
                                               traceSeconds: 1_000.0 / 60, startedAt: Date(), environment: RunEnvironment.capture()), to: url)
            return url
        }
        let (base, new) = (try directory(avifMean: 20), try directory(avifMean: 30))
        defer { for url in [base, new] { try? FileManager.default.removeItem(at: url) } }
        let comparison = ResultsComparison(base: try ResultsDirectory(path: base.path), new: try ResultsDirectory(path: new.path))
        #expect(comparison.verdicts.map(\.cell.name) == ["threads ×5 jpeg", "threads ×5 avif"])
        #expect(comparison.verdicts[0].text.hasPrefix("a tie within noise: mean placeholder time 10."), "\(comparison.verdicts)")
        #expect(comparison.verdicts[1].text.hasPrefix("SLOWER beyond noise: mean placeholder time 2"), "\(comparison.verdicts)")
    }
}
