import Foundation
import Testing
@testable import ImageBench

@Suite("Reports and comparisons")
struct ReportTests {
    @Test("CSV escapes and parses back RFC 4180 fields")
    func csvRoundTrip() {
        var table = CSVTable(header: ["a", "b", "c"])
        table.append(["plain", "with, comma", "with \"quotes\"\nand a line break"])
        table.append(["", "x", "y"])
        #expect(CSVTable.parse(table.rendered) == [
            ["a", "b", "c"], ["plain", "with, comma", "with \"quotes\"\nand a line break"], ["", "x", "y"],
        ])
        #expect(table.rendered.hasSuffix("\r\n"))
    }

    static func summary(strategy: String, concurrency: Int, p95: Double, hitRate: Int) -> RunSummary {
        RunSummary(strategy: strategy, concurrency: concurrency, repetition: 1, network: "wifi", transport: "blocking",
                   rows: 100, rowsVisited: 100, requests: 100, memoryHits: hitRate, diskHits: 0,
                   networkFetches: 100 - hitRate, merged: 0, errors: 0, displayed: 90, neverDisplayed: 10,
                   cancelledQueued: 1, cancelledInflight: 2, bytesDownloaded: 1000, bytesSaved: 10, bytesWasted: 5,
                   decodeMsSaved: 1, wastedCompletions: 0, prefetchLoads: 0, prefetchCancelled: 0, memoryEvictions: 0,
                   diskWrites: 0, diskDiscarded: 0, latencyP50Ms: 10, latencyP90Ms: 20, latencyP95Ms: p95, latencyP99Ms: 40,
                   latencyMaxMs: 50, placeholderRatio: 0.2, hitchMsPerS: 0, mainBusyMsPerS: 1, droppedFrames: 0,
                   achievedConcurrencyMean: 1, achievedConcurrencyPeak: 2, imagesDecoded: 90, imagesPerS: 9,
                   bytesPerS: 100, cpuUserS: 1, cpuSysS: 0.1, peakRssMb: 100, durationS: 10)
    }

    static func result(_ summary: RunSummary) -> RunResult {
        RunResult(cell: RunCell(strategy: StrategyKind(rawValue: summary.strategy)!, concurrency: summary.concurrency,
                                repetition: 1),
                  summary: summary, requests: [], latency: LatencyHistogram(), stages: StageHistograms())
    }

    @Test("the comparison table marks the best value of each column, and only where values differ")
    func bestMarks() {
        let table = ComparisonTable([
            Self.result(Self.summary(strategy: "gcd", concurrency: 5, p95: 80, hitRate: 40)),
            Self.result(Self.summary(strategy: "threads", concurrency: 5, p95: 60, hitRate: 30)),
        ])
        let p95 = table.header.firstIndex(of: "p95 ms")!
        let hit = table.header.firstIndex(of: "mem hit")!
        let p50 = table.header.firstIndex(of: "p50 ms")!
        #expect(table.best[1].contains(p95) && !table.best[0].contains(p95))
        #expect(table.best[0].contains(hit) && !table.best[1].contains(hit))
        #expect(!table.best[0].contains(p50) && !table.best[1].contains(p50))  // a tie everywhere: no mark
        let text = table.text()
        #expect(text.contains("60*"))
        #expect(text.contains("* best in its column"))
        #expect(table.markdown.contains("**60**"))
    }

    @Test("compare reads two results directories and reports each shared metric's relative change")
    func compareDirectories() throws {
        let baseDirectory = try Fixtures.temporaryDirectory("base"), newDirectory = try Fixtures.temporaryDirectory("new")
        defer {
            try? FileManager.default.removeItem(at: baseDirectory)
            try? FileManager.default.removeItem(at: newDirectory)
        }
        func write(_ summaries: [RunSummary], to directory: URL) throws {
            var table = CSVTable(header: summaries[0].fields.map(\.name))
            for summary in summaries { table.append(summary.fields.map(\.value.formatted)) }
            try table.rendered.write(to: directory.appendingPathComponent("summary.csv"), atomically: true, encoding: .utf8)
        }
        try write([Self.summary(strategy: "gcd", concurrency: 5, p95: 80, hitRate: 40),
                   Self.summary(strategy: "threads", concurrency: 1, p95: 90, hitRate: 40)], to: baseDirectory)
        try write([Self.summary(strategy: "gcd", concurrency: 5, p95: 100, hitRate: 20)], to: newDirectory)
        let comparison = ResultsComparison(base: try ResultsDirectory(path: baseDirectory.path),
                                           new: try ResultsDirectory(path: newDirectory.path))
        let p95 = try #require(comparison.lines.first { $0.metric == "latency_p95_ms" })
        #expect(p95.cell == "gcd ×5")
        #expect(p95.base == 80 && p95.new == 100)
        #expect(p95.relativeChange == 0.25)
        let hits = try #require(comparison.lines.first { $0.metric == "memory_hits" })
        #expect(hits.relativeChange == -0.5)
        #expect(comparison.unmatched == ["threads ×1"])
        #expect(!comparison.lines.contains { $0.metric == "strategy" || $0.metric == "network" })
        #expect(comparison.text.contains("+25.0%"))
        #expect(throws: ResultsDirectory.LoadError.self) { try ResultsDirectory(path: "/nonexistent/imgbench") }
    }
}

extension ReportTests {
    static func benchmark(_ runs: [RunResult]) -> BenchmarkResults {
        BenchmarkResults(plan: BenchmarkPlan(settings: RunSettings(), strategies: [.threads, .gcd], concurrencies: [1, 5]),
                         results: runs, corpusImages: 10, corpusBytes: 1_000, serverURL: "http://127.0.0.1:1",
                         traceSeconds: 1, startedAt: Date(), environment: RunEnvironment.capture())
    }

    static func results(_ cells: [(String, Int, Double, Int)]) -> BenchmarkResults {
        let runs = cells.map { strategy, concurrency, p95, hits in
            RunResult(cell: RunCell(strategy: StrategyKind(rawValue: strategy)!, concurrency: concurrency, repetition: 1),
                      summary: summary(strategy: strategy, concurrency: concurrency, p95: p95, hitRate: hits),
                      requests: [], latency: LatencyHistogram(), stages: StageHistograms())
        }
        return benchmark(runs)
    }

    @Test("report.md's findings state the numbers summary.csv has")
    func findings() throws {
        let results = Self.results([("threads", 1, 120, 40), ("gcd", 1, 150, 45), ("threads", 5, 80, 50), ("gcd", 5, 100, 50)])
        let csv = CSVTable.parse(try SummaryCSV().render(results))
        let row = { (strategy: String, limit: String) in
            Dictionary(uniqueKeysWithValues: zip(csv[0], csv.dropFirst().first { $0[0] == strategy && $0[1] == limit }!))
        }
        let markdown = try MarkdownReport().render(results)
        let threads5 = row("threads", "5")["latency_p95_ms"]!, gcd5 = row("gcd", "5")["latency_p95_ms"]!
        #expect(markdown.contains("- At a limit of 5, threads had the lowest p95 display latency, \(threads5) ms, 20% below gcd (\(gcd5) ms)."),
                "\(markdown)")
        #expect(markdown.contains("- At a limit of 1, gcd had the highest memory hit rate, 45.0%, 5.0 points above threads (40.0%)."))
        #expect(markdown.contains("- At a limit of 5, every strategy had the same memory hit rate, 50.0%."))
        #expect(markdown.contains("- threads: p95 display latency went from 120.000 ms at a limit of 1 to 80.000 ms at 5 (-33%)."))
    }
}

extension ReportTests {
    @Test("the HTML comparison is well-formed, one row per metric, worse in red and better in green")
    func comparisonHTML() throws {
        let base = try GateTests.directory(p95: [100, 100], hitRates: [0.5, 0.5])
        let new = try GateTests.directory(p95: [130, 130], hitRates: [0.6, 0.6])
        defer { for url in [base, new] { try? FileManager.default.removeItem(at: url) } }
        let comparison = ResultsComparison(base: try ResultsDirectory(path: base.path), new: try ResultsDirectory(path: new.path))
        let page = base.appendingPathComponent("comparison.html")
        try comparison.html.write(to: page, atomically: true, encoding: .utf8)
        let rows = try runPython("""
        import sys, xml.etree.ElementTree as ET
        root = ET.parse(sys.argv[1]).getroot()
        for row in root.iter():
            if row.get("class") == "metric":
                cells = list(row)
                print(cells[0].text, cells[3].get("style"), cells[3].text)
        """, arguments: [page.path]).split(separator: "\n")
        #expect(rows.count == comparison.lines.count)
        #expect(rows.contains("latency_p95_ms color: #d62728 +30.0%"), "\(rows)")
        #expect(rows.contains("memory_hit_rate color: #2ca02c +20.0%"), "\(rows)")
    }
}
