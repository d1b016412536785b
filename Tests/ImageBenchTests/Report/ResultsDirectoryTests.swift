import Foundation
import Testing
@testable import ImageBench

/// Results read back by the readers beside their writers: typed cells (strategy, limit, format,
/// the policies that vary) and repeats, not labels.
@Suite("results read back")
struct ResultsDirectoryTests {
    /// A run of `strategy` ×`limit` at `cancel`, as summary.csv's writer gets it.
    static func run(_ strategy: String, _ limit: Int, repeat repetition: Int, cancel: String, format: String = "jpeg+png",
                    p95: Double) -> RunResult {
        var summary = ReportTests.summary(strategy: strategy, concurrency: limit, p95: p95, hitRate: 50)
        summary.repetition = repetition
        summary.cancel = cancel
        summary.format = format
        return ReportTests.result(summary)
    }

    @Test("summary.csv written by SummaryCSV reads back as typed cells and repeats, with its metrics")
    func summaryRoundTrip() throws {
        let results = ReportTests.benchmark([
            Self.run("threads", 5, repeat: 1, cancel: "none", p95: 120),
            Self.run("threads", 5, repeat: 1, cancel: "offscreen", p95: 90),
            Self.run("threads", 5, repeat: 2, cancel: "none", p95: 121.5),
            Self.run("gcd", 2, repeat: 1, cancel: "none", format: "avif", p95: 80),
        ])
        let text = try SummaryCSV().render(results)
        let directory = try ResultsDirectory(path: "/results", text: text, file: "/results/summary.csv")

        #expect(directory.cells.map(\.cell.name) == ["threads ×5 cancel=none", "threads ×5 cancel=offscreen", "gcd ×2 avif cancel=none"])
        let (cell, runs) = directory.cells[0]
        #expect(cell.strategy == .known(.threads) && cell.strategy.kind == .threads && cell.concurrency == 5)
        #expect(cell.format == "" && cell.variant.values == [.cancel: "none"])
        #expect(runs.map(\.repetition) == [1, 2] && runs.map { $0.value("display_p95_ms") } == [120, 121.5])
        #expect(runs[1].text("display_p95_ms") == "121.500" && runs[1].value("no_such_column") == nil)
        // The same cell made from values is the one read: merge, compare and gate key by it.
        #expect(cell == ResultCell(strategy: "threads", concurrency: 5, format: "jpeg+png", variant: PolicyVariant([.cancel: "none"])))
        let gcd = directory.cells[2].cell
        #expect(gcd.strategy == .known(.gcd) && gcd.concurrency == 2 && gcd.format == "avif")
        #expect(try runs[0].summary().display.p95 == 120)

        // A/B mode writes the runs back unchanged but for their repeats.
        #expect(SummaryCSV.render(header: directory.header, runs: directory.runs) == text)
    }

    @Test("a strategy this imgbench does not know is still a cell, named as written, never run")
    func unknownStrategy() throws {
        let results = ReportTests.benchmark([Self.run("threads", 5, repeat: 1, cancel: "none", p95: 100)])
        let text = try SummaryCSV().render(results).replacingOccurrences(of: "\r\nthreads,", with: "\r\nfibers,")
        let cell = try #require(try ResultsDirectory(path: "/r", text: text, file: "/r/summary.csv").cells.first?.cell)
        #expect(cell.strategy == .other("fibers") && cell.strategy.kind == nil && cell.name == "fibers ×5")
    }

    @Test("a row whose limit is not a number is refused, naming the file and row")
    func badLimit() throws {
        let text = "strategy,concurrency,repeat,display_p95_ms\r\nthreads,5,1,10\r\nthreads,five,1,10\r\n"
        let error = #expect(throws: ResultsDirectory.LoadError.self) {
            try ResultsDirectory(path: "/r", text: text, file: "/r/summary.csv")
        }
        #expect(error?.description == "/r/summary.csv:3: concurrency is not a number: 'five'")
    }

    @Test("a 0.1.0 baseline reads with today's display_* names, its cells typed and its repeats numbered")
    func baseline010() throws {
        let text = try String(contentsOf: FormerNamesTests.legacySummary, encoding: .utf8)
        let directory = try ResultsDirectory(path: "/baseline", text: text, file: "/baseline/summary.csv")
        #expect(directory.header.contains("display_p95_ms") && !directory.header.contains { $0.hasPrefix("latency_") })
        #expect(directory.cells.map(\.cell.name) == ["operation-queue ×5", "threads ×5"])
        let (threads, runs) = directory.cells[1]
        #expect(threads.strategy == .known(.threads) && threads.concurrency == 5 && threads.format == "" && threads.variant.values.isEmpty)
        #expect(runs.map(\.repetition) == [1, 2, 3, 4, 5])
        #expect(runs[0].value("display_p95_ms") == 50.015 && runs[0].text("latency_p95_ms") == nil)
        // A column 0.1.0 did not write is missing, not zero: the gate says it cannot check it.
        #expect(runs[0].text("errors_http_status") == nil && runs[0].value("errors_http_status") == nil)
    }

    @Test("clients.csv and requests.csv read back keyed by typed cell and repeat")
    func clientsAndRequests() throws {
        var result = Self.run("threads", 5, repeat: 2, cancel: "offscreen", p95: 100)
        result.clients = [(0, result.summary), (1, result.summary)]
        let results = ReportTests.benchmark([result])
        let rows = try ClientsCSV.read(try ClientsCSV().render(results), varied: [.cancel])
        let cell = ResultCell(strategy: "threads", concurrency: 5, variant: PolicyVariant([.cancel: "offscreen"]))
        #expect(rows.map(\.client) == [0, 1] && rows.allSatisfy { $0.cell == cell && $0.repetition == 2 })
        #expect(rows[1].summary.display.p95 == 100)
        #expect(throws: RunSummary.RowError.self) { try ClientsCSV.read("", varied: []) }

        let requests = RequestsCSV.read(RequestsCSV.header.joined(separator: ",") + "\r\n", varied: [.cancel])
        #expect(requests.isEmpty)
    }
}
