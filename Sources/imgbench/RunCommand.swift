import ArgumentParser
import Foundation
import ImageBench

/// `imgbench run`: maps the flags to `RunOptions`, runs the plan they make, writes the results
/// directory. Every rule about the flags lives in the library (`RunOptions`, `BenchmarkPlan.validate`).
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Scroll a simulated feed and measure each strategy × concurrency limit.",
        usage: "imgbench [run] [<options>]")

    @OptionGroup(title: "The feed and its scrolling") var workload: WorkloadFlags
    @OptionGroup(title: "The pipeline: strategies, caches and policies") var pipeline: StrategyFlags
    @OptionGroup(title: "The network and the server") var network: NetworkFlags
    @OptionGroup(title: "Load: many users, many machines") var load: LoadFlags
    @OptionGroup(title: "Measurement") var measurement: MeasurementFlags
    @OptionGroup(title: "Output") var output: OutputFlags
    @OptionGroup(title: "Testing aids") var testing: TestingFlags

    func validate() throws {
        _ = try plan()
        _ = try output.parsedThresholds()
    }

    func run() throws {
        let plan = try plan()
        let directory = URL(fileURLWithPath: output.out ?? "imgbench-results/\(Timestamp.now())")
        let claim: OutputClaim
        do {
            claim = try OutputClaim.claim(directory, force: output.force)
        } catch {
            throw CommandFailure(error.description, status: error.usage ? 64 : 2)
        }
        // A run that fails before writing anything leaves no empty directory behind it.
        var written = false
        defer { claim.release(wroteResults: written) }
        for note in options.notes { FileHandle.standardError.write(Data("imgbench: \(note)\n".utf8)) }
        let stop = StopRequest()
        let trap = SignalTrap(stopping: stop)
        defer { withExtendedLifetime(trap) {} }
        var results = try CommandFailure.catching("the run could not be done") {
            try Benchmark.run(plan, observer: TerminalProgress(quiet: output.quiet), stop: stop, corpusCache: workload.corpusCache)
        }
        results.thresholdChecks = RunThresholds.evaluate(try output.parsedThresholds(), on: results.results)
        try CommandFailure.catching("cannot write results to \(directory.path)") { try Reports.write(results, to: directory) }
        written = true
        // The verdict and the table go to stdout, or with --format json to stderr beside the
        // progress, so that stdout is summary.json alone (`imgbench --format json | jq`).
        let json = output.format == .json
        let verdict = results.results.isEmpty ? "" : Verdict(results).lines.joined(separator: "\n") + "\n\n"
        let table = ComparisonTable(results).text(bold: TerminalStyle.allowsBold(json ? STDERR_FILENO : STDOUT_FILENO))
        let checks = RunThresholds.listing(results.thresholdChecks)
        let human = verdict + FormatTable(results).text + StageTable(results).text + PipelineNotes(results).text + CacheSizeReport(results).text + table + checks + "\n\nResults: \(directory.path)/ (\(Reports.all.map(\.fileName).joined(separator: ", ")))\n"
        if json {
            FileHandle.standardError.write(Data(human.utf8))
            let json = try CommandFailure.catching("cannot render summary.json") { try SummaryJSON().render(results) }
            print(json, terminator: json.hasSuffix("\n") ? "" : "\n")
        } else {
            print(human, terminator: "")
        }
        // A stop explains an empty run better than its missing images do.
        if let reason = results.stoppedBy {
            throw CommandFailure("stopped by \(reason): partial results (\(results.results.count) of \(plan.measuredRuns) runs)",
                                 status: SignalTrap.exitStatus(for: reason))
        }
        // A stop that came while the reports were written: they are whole, but the run was asked
        // to end, and says so in its status (143 for SIGTERM), as a stop during the runs does.
        if let reason = stop.reason {
            throw CommandFailure("stopped by \(reason) after the runs: the results are complete", status: SignalTrap.exitStatus(for: reason))
        }
        if let reason = results.nothingLoaded { throw CommandFailure(reason) }
        if let broken = RunThresholds.brokenMessage(results.thresholdChecks) { throw CommandFailure(broken, status: 1) }
    }

    /// The flags as options, one field each.
    var options: RunOptions {
        var options = RunOptions()
        workload.apply(to: &options)
        pipeline.apply(to: &options)
        network.apply(to: &options)
        load.apply(to: &options)
        measurement.apply(to: &options)
        testing.apply(to: &options)
        return options
    }

    func plan() throws -> BenchmarkPlan {
        do {
            return try options.plan()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The plan `imgbench run ARGUMENTS` would run: how a directory written by imgbench 0.1 (its
    /// recorded arguments) is read, and what a gate side's extra arguments make of a plan.
    static func plan(arguments: [String]) throws -> BenchmarkPlan {
        try parse(arguments).plan()
    }
}
