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

    @Test("milliseconds written without Foundation read as printf's: every value at 6 places, all but exact ties at 3")
    func fixedPointMilliseconds() {
        var random = SeededRandom(seed: 7, stream: "ms")
        let edges: [UInt64] = [0, 1, 499, 500, 501, 999, 1_000, 999_999, 1_000_000, 1_000_500, 16_666_667, 3_600_000_000_000]
        for nanoseconds in edges + (0..<5_000).map({ _ in random.next() % 10_000_000_000 }) {
            let exact = String(format: "%.6f", Double(nanoseconds) / 1e6)
            #expect(Format.milliseconds(nanoseconds: nanoseconds, decimals: 6) == exact)
            // printf rounds the binary double, so a value exactly halfway may go either way.
            if nanoseconds % 1_000 != 500 {
                #expect(Format.milliseconds(nanoseconds: nanoseconds, decimals: 3) == String(format: "%.3f", Double(nanoseconds) / 1e6),
                        "\(nanoseconds)")
            }
        }
        #expect(Format.milliseconds(nanoseconds: 1_500, decimals: 3) == "0.002" && Format.milliseconds(nanoseconds: 2_499_999, decimals: 0) == "2")
    }

    static func summary(strategy: String, concurrency: Int, p95: Double, hitRate: Int) -> RunSummary {
        RunSummary(strategy: strategy, concurrency: concurrency, repetition: 1, network: "wifi", transport: "blocking",
                   rows: 100, rowsVisited: 100, requests: 100, memoryHits: hitRate, diskHits: 0,
                   networkFetches: 100 - hitRate, merged: 0, errors: 0, displayed: 90, neverDisplayed: 10,
                   cancelledQueued: 1, cancelledInflight: 2, bytesDownloaded: 1000, bytesSaved: 10, bytesWasted: 5,
                   decodeMsSaved: 1, wastedCompletions: 0, prefetchLoads: 0, prefetchCancelled: 0, memoryEvictions: 0,
                   diskWrites: 0, diskDiscarded: 0, display: DistributionSummary(p50: 10, p90: 20, p95: p95, p99: 40, max: 50),
                   placeholderRatio: 0.2, hitchMsPerS: 0, mainBusyMsPerS: 1, droppedFrames: 0,
                   achievedConcurrencyMean: 1, achievedConcurrencyPeak: 2, imagesDecoded: 90, imagesLoaded: 90,
                   cpuUserS: 1, cpuSysS: 0.1, peakRssMb: 100, durationS: 10)
    }

    static func result(_ summary: RunSummary) -> RunResult {
        RunResult(cell: RunCell(strategy: StrategyKind(rawValue: summary.strategy)!, concurrency: summary.concurrency,
                                repetition: 1),
                  summary: summary, requests: [], latency: LatencyHistogram(), stages: StageHistograms())
    }

    /// Runs of one cell, repeat by repeat, each with its p95, memory hits and never-shown count.
    static func repeats(_ strategy: String, _ limit: Int, p95: [Double], hits: [Int], never: [Int]) -> [RunResult] {
        p95.indices.map { index in
            var summary = Self.summary(strategy: strategy, concurrency: limit, p95: p95[index], hitRate: hits[index])
            summary.repetition = index + 1
            summary.neverDisplayed = never[index]
            return RunResult(cell: RunCell(strategy: StrategyKind(rawValue: strategy)!, concurrency: limit, repetition: index + 1),
                             summary: summary, requests: [], latency: LatencyHistogram(), stages: StageHistograms())
        }
    }

    @Test("with repeats the table has one row per cell, its median ± the interval; a cell is starred only beyond the noise, never from one run each")
    func bestMarks() {
        let runs = Self.repeats("gcd", 5, p95: [80, 81, 82], hits: [40, 41, 42], never: [10, 20, 30])
            + Self.repeats("threads", 5, p95: [60, 61, 62], hits: [30, 31, 32], never: [15, 25, 35])
        let table = ComparisonTable(runs, traceFrames: 1_000)
        let column = { (title: String) in table.header.firstIndex(of: title)! }
        // One row per cell, over its three runs: the median, ± the wider side of its interval.
        #expect(table.rows.count == 2 && table.rows.allSatisfy { $0[column("runs")] == "3" })
        #expect(table.rows.map { $0[column("display p95 ms")] } == ["81 ±1", "61 ±1"])
        #expect(table.rows.map { $0[column("never shown")] } == ["20 ±10", "25 ±10"])
        #expect(table.best[1].contains(column("display p95 ms")) && !table.best[0].contains(column("display p95 ms")))
        #expect(table.best[0].contains(column("mem hit")) && !table.best[1].contains(column("mem hit")))
        // Overlapping intervals (10–30 against 15–35): a tie, unmarked; equal everywhere: unmarked.
        #expect(table.best.allSatisfy { !$0.contains(column("never shown")) && !$0.contains(column("display p50 ms")) })
        #expect(table.text().contains("61 ±1*") && table.markdown.contains("**61 ±1**"))
        #expect(table.text().contains("With repeats, a row is a cell") && table.text().contains("ph: placeholder time"))
        #expect(!table.text().contains("--repeat 3"))

        // One run each: no runs column, and the same 20 ms gap in p95 is no evidence; the legend says what would be.
        let single = ComparisonTable([runs[1], runs[4]], traceFrames: 1_000)
        #expect(!single.header.contains("runs") && single.rows.map { $0[single.header.firstIndex(of: "display p95 ms")!] } == ["81", "61"])
        #expect(single.best.allSatisfy { $0.isEmpty })
        #expect(single.text().contains("with one run per cell only ph mean can be marked (--repeat 3 marks the others)"))
        #expect(!single.text().contains("With repeats"))
    }

    @Test("one run each: mean placeholder time is marked when the paired segments show it, not when they do not")
    func placeholderMark() {
        let column = ComparisonTable.columns.firstIndex { $0.title == "ph mean ms" }!
        let clear = ComparisonTable([VerdictTests.run(.gcd, 5, mean: 20), VerdictTests.run(.threads, 5, mean: 10)], traceFrames: 1_000)
        #expect(!clear.best[0].contains(column) && clear.best[1].contains(column))
        let tie = ComparisonTable([VerdictTests.run(.threads, 5, mean: 10.2), VerdictTests.run(.gcd, 5, mean: 10)], traceFrames: 1_000)
        #expect(tie.best.allSatisfy { !$0.contains(column) })
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
        let p95 = try #require(comparison.lines.first { $0.metric == "display_p95_ms" })
        #expect(p95.cell.name == "gcd ×5")
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

    @Test("report.md's findings name a better strategy only beyond the noise, with the aggregate's numbers and their n")
    func findings() throws {
        let runs = Self.repeats("threads", 1, p95: [119, 120, 121], hits: [40, 40, 40], never: [10, 10, 10])
            + Self.repeats("gcd", 1, p95: [149, 150, 151], hits: [44, 45, 46], never: [10, 10, 10])
            + Self.repeats("threads", 5, p95: [79, 80, 81], hits: [50, 50, 50], never: [10, 10, 10])
            + Self.repeats("gcd", 5, p95: [78, 100, 120], hits: [50, 50, 50], never: [10, 10, 10])
        let results = Self.benchmark(runs)
        let csv = CSVTable.parse(try SummaryAggregateCSV().render(results))
        let median = { (strategy: String, limit: String, column: String) in
            Dictionary(uniqueKeysWithValues: zip(csv[0], csv.dropFirst().first { $0[0] == strategy && $0[1] == limit }!))[column]!
        }
        let markdown = try MarkdownReport().render(results)
        let (threads1, gcd1) = (median("threads", "1", "display_p95_ms_median"), median("gcd", "1", "display_p95_ms_median"))
        #expect(markdown.contains("- At a limit of 1, threads had the lowest p95 display latency, \(threads1) ms, n = 90 shown per run, "
                                  + "20% below gcd (\(gcd1) ms, n = 90 shown per run), beyond the noise."), "\(markdown)")
        // 80 (79–81) against 100 (78–120): the intervals meet, so no winner is named.
        #expect(markdown.contains("- At a limit of 5, no strategy's p95 display latency differed beyond the noise (threads 80.000 ms, "
                                  + "n = 90 shown per run; gcd 100.000 ms, n = 90 shown per run), over repeats."), "\(markdown)")
        #expect(markdown.contains("- At a limit of 1, gcd had the highest memory hit rate, 45.0%, 5.0 points above threads (40.0%), beyond the noise."))
        #expect(markdown.contains("- At a limit of 5, every strategy had the same memory hit rate, 50.0%."))
        #expect(markdown.contains("- threads: p95 display latency went from 120.000 ms (n = 90 shown per run) at a limit of 1 to "
                                  + "80.000 ms (n = 90 shown per run) at 5 (-33%), beyond the noise."))

        // One run each: the same gap is reported with its numbers, and not called.
        let single = try MarkdownReport().render(Self.results([("threads", 5, 80, 50), ("gcd", 5, 100, 50)]))
        #expect(single.contains("- At a limit of 5, no strategy's p95 display latency differed beyond the noise (threads 80.000 ms, "
                                + "n = 90 shown; gcd 100.000 ms, n = 90 shown); one run each cannot tell (--repeat 3 can)."), "\(single)")
    }
}

extension ReportTests {
    @Test("the HTML comparison is well-formed, one row per metric, worse in red and better in green")
    func comparisonHTML() throws {
        let base = try GateTests.directory(p95: [100, 101, 99, 100], hitRates: [0.5, 0.5, 0.49, 0.51])
        let new = try GateTests.directory(p95: [130, 131, 129, 130], hitRates: [0.6, 0.6, 0.61, 0.59])
        let few = try GateTests.directory(p95: [130, 130], hitRates: [0.6, 0.6])
        defer { for url in [base, new, few] { try? FileManager.default.removeItem(at: url) } }
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
        #expect(rows.contains("display_p95_ms color: #d62728 +30.0%"), "\(rows)")
        #expect(rows.contains("memory_hit_rate color: #2ca02c +20.0%"), "\(rows)")
        // Two runs a side cannot tell a change from noise: grey, and "?" in the text.
        let unsure = ResultsComparison(base: try ResultsDirectory(path: base.path), new: try ResultsDirectory(path: few.path))
        #expect(unsure.html.contains("color: #999\">+30.0%"), "\(unsure.html)")
        #expect(unsure.text.contains("+30.0%  ?"), "\(unsure.text)")
        #expect(comparison.text.contains("+30.0%  worse"), "\(comparison.text)")
    }
}

extension ReportTests {
    /// Written as a run writes them (summary.csv, summary.json, requests.csv…), over a trace of
    /// 1,000 frames at 60 fps, the one VerdictTests' runs are spread over.
    static func written(_ runs: [RunResult]) throws -> URL {
        let directory = try Fixtures.temporaryDirectory("compare")
        let results = BenchmarkResults(plan: BenchmarkPlan(settings: RunSettings(), strategies: [.threads, .gcd, .mainThread], concurrencies: [5]),
                                       results: runs, corpusImages: 10, corpusBytes: 1_000, serverURL: "http://127.0.0.1:1",
                                       traceSeconds: 1_000.0 / 60, startedAt: Date(), environment: RunEnvironment.capture())
        try Reports.write(results, to: directory)
        return directory
    }

    @Test("compare's verdict per cell: slower beyond noise, a tie, or could not measure, from the two requests.csv")
    func compareVerdicts() throws {
        let base = try Self.written([VerdictTests.run(.threads, 5, mean: 10), VerdictTests.run(.gcd, 5, mean: 10),
                                     VerdictTests.run(.mainThread, 5, mean: 10)])
        // Another draw of the noise on the new side, as another run would have.
        let new = try Self.written([VerdictTests.run(.threads, 5, mean: 14, noise: 1), VerdictTests.run(.gcd, 5, mean: 10.1, noise: 1),
                                    VerdictTests.run(.mainThread, 5, mean: 12, noise: 1)])
        defer { for url in [base, new] { try? FileManager.default.removeItem(at: url) } }
        let comparison = ResultsComparison(base: try ResultsDirectory(path: base.path), new: try ResultsDirectory(path: new.path))
        let verdicts = Dictionary(uniqueKeysWithValues: comparison.verdicts.map { ($0.cell.name, $0) })
        let threads = try #require(verdicts["threads ×5"])
        // The noise is seeded, so the numbers are exact: 4 ms slower, ±5 ms of noise a request.
        #expect(threads.text.hasPrefix("SLOWER beyond noise: mean placeholder time 10.0 → 14.1 ms (n = 400 → 400 requests), +4.1 ms"),
                "\(threads.text)")
        #expect(threads.change.map { $0.low > 3 && $0.high < 5 && $0.n == 20 } == true, "\(String(describing: threads.change))")
        #expect(verdicts["gcd ×5"]?.text.hasPrefix("a tie within noise: mean placeholder time 10.2 → 10.0 ms") == true,
                "\(verdicts["gcd ×5"]?.text ?? "")")
        #expect(verdicts["main-thread ×5"]?.text == "could not measure: base: the control")
        #expect(comparison.text.contains("threads ×5: SLOWER beyond noise"))
    }
}
