import Foundation
import Testing
@testable import ImageBench

/// `--budget`: rounds on new traces for the cells still open, intervals split over the looks.
@Suite("The budget race")
struct BudgetTests {
    @Test("t quantiles at any level match SciPy's t.ppf; the level's label")
    func quantiles() {
        for (p, df, scipy) in [(0.995, 10, 3.16927267261695), (0.9975, 4, 5.597568367075492), (0.999, 1, 318.30883898555015),
                               (0.99, 60, 2.3901194726249133), (0.975, 4, 2.7764451051977934)] {
            #expect(abs(StudentT.quantile(p, degreesOfFreedom: df) - scipy) < 1e-6 * scipy, "t(\(p), \(df))")
        }
        // At 5% the table a report was written with, so a report written again prints the same.
        #expect(Confidence.$alpha.withValue(0.05) { StudentT.twoSided(degreesOfFreedom: 4) } == 2.776)
        #expect(Confidence.$alpha.withValue(0.01) { abs(StudentT.twoSided(degreesOfFreedom: 10) - 3.16927267261695) < 1e-6 })
        #expect(Confidence.label == "95%" && Confidence.$alpha.withValue(0.05 / 6) { Confidence.label } == "99.2%")
    }

    @Test("the flag: a duration in range, instead of --repeat, for one user's scroll; said back by RunArguments")
    func flag() throws {
        let plan = try RunOptions(parsing: ["--budget", "3m", "--strategies", "gcd", "--concurrency", "1,3"]).plan()
        #expect(plan.budget == Budget(seconds: 180) && plan.cells.map(\.trace) == [0, 0])
        #expect(try RunOptions(parsing: RunArguments(plan).words).plan() == plan)
        func refusal(_ words: [String]) -> String {
            do { _ = try RunOptions(parsing: words).plan(); return "" } catch { return error.description }
        }
        #expect(refusal(["--budget", "5s"]).hasPrefix("--budget"), "\(refusal(["--budget", "5s"]))")
        #expect(refusal(["--budget", "soon"]).contains("is not a duration"))
        #expect(refusal(["--budget", "1m", "--repeat", "3"]) == "--budget decides how many rounds each cell runs: drop --repeat")
        #expect(refusal(["--budget", "1m", "--clients", "2"]).contains("it is a load test: drop --budget"))
        // A plan's budget read back with only its seconds (written before a field was added, or by hand).
        let bare = try JSONDecoder().decode(Budget.self, from: Data(#"{"seconds": 120}"#.utf8))
        #expect(bare == Budget(seconds: 120) && bare.looks == 1 && bare.ended.isEmpty)
        // Round r scrolls session r − 1's trace; without a budget every repeat scrolls the first.
        #expect(plan.trace(ofRepetition: 3) == 2 && BenchmarkPlan(settings: RunSettings(), strategies: [.gcd], concurrencies: [1]).trace(ofRepetition: 3) == 0)
    }

    /// A measured run of `kind` ×`limit` in round `round` (on its trace), placeholder times about `mean`.
    static func round(_ kind: StrategyKind, _ limit: Int, _ round: Int, mean: Double, spread: Double = 40) -> RunResult {
        let run = VerdictTests.run(kind, limit, mean: mean, noise: UInt64(round * 7), spread: spread)
        let cell = RunCell(strategy: kind, concurrency: limit, repetition: round, trace: round - 1)
        return RunResult(cell: cell, summary: run.summary, requests: run.requests, latency: LatencyHistogram(), stages: StageHistograms())
    }

    @Test("the race: an open comparison runs again on a new trace, a cell shown slower drops out, a decision ends it")
    func race() throws {
        var plan = BenchmarkPlan(settings: RunSettings(), strategies: [.gcd, .threads, .operationQueue], concurrencies: [5])
        plan.budget = Budget(seconds: 600)
        // Round one: gcd and threads are not told apart (20 against 22 ms, noisy); operation-queue is far slower.
        var results = [Self.round(.gcd, 5, 1, mean: 20), Self.round(.threads, 5, 1, mean: 22), Self.round(.operationQueue, 5, 1, mean: 200, spread: 5)]
        #expect(Verdict(results, traceFrames: 1_000).decision == .undecided)
        var measured: [RunCell] = []
        BudgetRace.run(&plan, results: &results, startedAt: MonotonicClock().now(), cellSeconds: ["gcd ×5": 30, "threads ×5": 30, "operation-queue ×5": 30],
                       traceFrames: 1_000, stop: nil, observer: nil) { cell in
            measured.append(cell)
            // On the new trace threads is clearly slower.
            return Self.round(cell.strategy, 5, cell.repetition, mean: cell.strategy == .gcd ? 20 : 45)
        }
        let budget = try #require(plan.budget)
        // A hair under 600 s of budget left over pairs of 30 s cells: 9 later rounds at most, 10 looks, each at 5% / 10.
        #expect(budget.looks == 10 && abs(budget.alpha - 0.05 / 10) < 1e-12, "\(budget)")
        #expect(budget.ended == "decided" && budget.rounds == 2, "\(budget)")
        #expect(measured.map(\.name) == ["gcd ×5", "threads ×5"] && measured.allSatisfy { $0.repetition == 2 && $0.trace == 1 }, "\(measured)")
        let verdict = Confidence.$alpha.withValue(budget.alpha) { Verdict(results, traceFrames: 1_000, plan: plan) }
        #expect(verdict.decision == .better && verdict.recommended?.name == "gcd ×5", "\(verdict.lines)")
        let line = try #require(verdict.lines.last)
        #expect(line.hasPrefix("--budget 10 min: spent ") && line.contains("on 2 rounds (every cell once, then new traces for the cells still open: gcd ×5 2 rounds, threads ×5 2 rounds); ")
                && line.contains("ended because everything the verdict compares was decided") && line.contains("at 99.5% (5% split over the 10 looks"), "\(line)")
    }

    @Test("a budget too small for a second round ends after the first, and says so")
    func spent() throws {
        var plan = BenchmarkPlan(settings: RunSettings(), strategies: [.gcd, .threads], concurrencies: [5])
        plan.budget = Budget(seconds: 20)
        var results = [Self.round(.gcd, 5, 1, mean: 20), Self.round(.threads, 5, 1, mean: 22)]
        BudgetRace.run(&plan, results: &results, startedAt: MonotonicClock().now(), cellSeconds: ["gcd ×5": 30, "threads ×5": 30],
                       traceFrames: 1_000, stop: nil, observer: nil) { _ in Issue.record("no round fits"); return nil }
        let budget = try #require(plan.budget)
        #expect(budget.looks == 1 && budget.rounds == 1 && results.count == 2, "\(budget)")
        // One look: the race ends there whatever it saw, at 95%, because the budget had no room for more.
        #expect(budget.ended == "budget" && budget.alpha == 0.05, "\(budget)")
    }
}

extension BudgetTests {
    @Test("through the binary: a budget run records its rounds in the plan and says what they bought")
    func binary() throws {
        let directory = try Fixtures.temporaryDirectory("budget")
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("run").path
        let run = try Fixtures.imgbench(["--budget", "15s", "--rows", "60", "--images", "20", "--strategies", "gcd", "--concurrency", "1,2",
                                         "--network", "loopback", "--quiet", "--out", out])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("--budget 15 s: spent "), "\(run.output)")
        let plan = try RecordedPlan.read(directory: out)
        let budget = try #require(plan.budget)
        // A busy host (ThreadSanitizer) can leave no cell ranked: then there is nothing to race, and it says so.
        #expect(budget.seconds == 15 && budget.rounds >= 1 && budget.looks >= 1 && ["decided", "unranked", "budget", "looks"].contains(budget.ended), "\(budget)")
        // Every round's runs are in summary.csv, round r as repeat r; the report written again says the same.
        let rows = try CSVTable.parse(String(contentsOfFile: out + "/summary.csv", encoding: .utf8))
        let repeats = rows.dropFirst().compactMap { $0[rows[0].firstIndex(of: "repeat")!] }.compactMap(Int.init)
        #expect(repeats.filter { $0 == 1 }.count == 2 && (repeats.max() ?? 0) == budget.rounds, "\(repeats)")
        let again = directory.appendingPathComponent("again").path
        let report = try Fixtures.imgbench(["report", out, "--out", again])
        #expect(report.status == 0, "\(report.output)")
        let markdown = try String(contentsOfFile: again + "/report.md", encoding: .utf8)
        #expect(markdown.contains("--budget 15 s: spent ") && markdown.contains("Every interval and test here is at "), "\(markdown.prefix(2_000))")
    }
}
