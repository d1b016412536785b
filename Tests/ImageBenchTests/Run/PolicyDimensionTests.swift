import Foundation
import Testing
@testable import ImageBench

/// Policies as lists: each a dimension of the matrix, named in every cell, recorded in the plan,
/// said back to the gate's children, and compared by their effects.
@Suite("Policies as matrix dimensions")
struct PolicyDimensionTests {
    @Test("--cancel none,offscreen --prefetch 0,10 makes four cells on one plan, named by what differs")
    func cells() throws {
        var options = RunOptions()
        options["strategies"] = "threads"
        options["cancel"] = "none,offscreen"
        options["prefetch"] = "0,010"
        let plan = try options.plan()
        #expect(plan.variations == [PolicyVariation(dimension: .cancel, values: ["none", "offscreen"]),
                                    PolicyVariation(dimension: .prefetch, values: ["0", "10"])])
        #expect(plan.measuredRuns == 4)
        #expect(plan.cells.map(\.name) == ["threads ×5 cancel=none prefetch=0", "threads ×5 cancel=none prefetch=10",
                                           "threads ×5 cancel=offscreen prefetch=0", "threads ×5 cancel=offscreen prefetch=10"])
        let last = try #require(plan.cells.last)
        #expect(plan.settings(for: last).cancelPolicy == .offscreen && plan.settings(for: last).prefetch == 10)
        // The settings hold the first values; the plan round-trips through summary.json's coding.
        #expect(plan.settings.cancelPolicy == .none && plan.settings.prefetch == 0)
        #expect(try JSONDecoder().decode(BenchmarkPlan.self, from: JSONEncoder().encode(plan)) == plan)
        // The gate's children get the lists back.
        let words = RunArguments(plan).words
        #expect(words[words.firstIndex(of: "--cancel")! + 1] == "none,offscreen" && words[words.firstIndex(of: "--prefetch")! + 1] == "0,10")
        // One value is no dimension: the name stays as before.
        options["cancel"] = "none"
        options["prefetch"] = "0"
        #expect(try options.plan().cells.map(\.name) == ["threads ×5"])
    }

    @Test("bad policy lists are one-line errors naming the flag", arguments: [
        ("--cancel", "none,sometimes", "--cancel: unknown value 'sometimes'"),
        ("--prefetch", "0,10,010", "--prefetch '0,10,010' names a value twice"),
        ("--memory-cache-mb", "16,,64", "--memory-cache-mb '16,,64': item 2 is empty"),
        ("--memory-cache-mb", "16,99999", "--memory-cache-mb must be between 0 and 65536 (got 99999)"),
    ])
    func refused(flag: String, value: String, message: String) {
        var options = RunOptions()
        switch flag {
        case "--cancel": options["cancel"] = value
        case "--prefetch": options["prefetch"] = value
        default: options["memory-cache-mb"] = value
        }
        #expect { try options.plan() } throws: { error in
            (error as? PlanError)?.description.hasPrefix(message) == true
        }
    }

    /// A constructed run of `variant` downloading `megabytes`, with placeholder times `mean` ms
    /// in every one of the 20 segments (VerdictTests' runs).
    static func run(_ variant: PolicyVariant, megabytes: Double, mean: Double, repetition: Int = 1) -> RunResult {
        let base = VerdictTests.run(.threads, 5, mean: mean, megabytes: megabytes, noise: UInt64(repetition))
        var summary = base.summary
        summary.cancel = variant.values[.cancel] ?? "offscreen"
        summary.repetition = repetition
        return RunResult(cell: RunCell(strategy: .threads, concurrency: 5, repetition: repetition, variant: variant), summary: summary,
                         requests: base.requests, distributions: base.distributions)
    }

    @Test("a saving is the difference of two runs of the same trace: bytes(none) − bytes(offscreen), with its interval over repeats")
    func savings() throws {
        let none = PolicyVariant([.cancel: "none"]), offscreen = PolicyVariant([.cancel: "offscreen"])
        let results = [Self.run(none, megabytes: 6.78, mean: 20), Self.run(offscreen, megabytes: 5.68, mean: 26)]
        let effects = Effects(results, traceFrames: 1_000)
        let effect = try #require(effects.effects.first)
        #expect(effects.effects.count == 1 && effect.dimension == .cancel && effect.value == "offscreen" && effect.baseline == "none")
        #expect(abs(effect.bytes - (5_680_000 - 6_780_000)) < 3, "\(effect.bytes)")
        #expect(effect.bytesInterval == nil, "one run each: no interval")
        let placeholder = try #require(effect.placeholder)
        #expect(placeholder.low > 0 && abs(placeholder.center - 6) < 1, "\(placeholder)")
        #expect(effects.lines[1].hasPrefix("cancel=offscreen vs none at threads ×5: placeholder time +")
                && effects.lines[1].contains("-1.10 MB downloaded (6.78 → 5.68 MB") && effects.lines[1].contains("1.10 MB less on this trace"),
                "\(effects.lines)")
        // Three repeats each: the saving gets an interval over the repeats, paired by round.
        let repeated = (1...3).flatMap { round in
            [Self.run(none, megabytes: 6.78 + 0.01 * Double(round), mean: 20, repetition: round),
             Self.run(offscreen, megabytes: 5.68 + 0.02 * Double(round), mean: 26, repetition: round)]
        }
        let interval = try #require(Effects(repeated, traceFrames: 1_000).effects.first?.bytesInterval)
        #expect(interval.n == 3 && interval.high < 0 && abs(interval.center + 1_080_000) < 3, "\(interval)")
        #expect(Effects(repeated, traceFrames: 1_000).lines[1].contains("saves 1.08 MB"), "beyond the noise over repeats: a saving")
        // The control is never compared.
        let control = [Self.run(none, megabytes: 6.78, mean: 20), Self.run(offscreen, megabytes: 5.68, mean: 26)].map { result in
            RunResult(cell: RunCell(strategy: .mainThread, concurrency: 5, repetition: 1, variant: result.cell.variant), summary: {
                var summary = result.summary
                summary.strategy = StrategyKind.mainThread.rawValue
                return summary
            }(), requests: result.requests, distributions: result.distributions)
        }
        #expect(Effects(control, traceFrames: 1_000).effects.isEmpty)
        // The verdict carries the effects in its lines: the terminal, report.md and report.html show them.
        #expect(Verdict(results, traceFrames: 1_000).lines.contains { $0.hasPrefix("cancel=offscreen vs none at threads ×5") })
    }
}
