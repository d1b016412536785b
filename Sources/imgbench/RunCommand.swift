import ArgumentParser
import Foundation
import ImageBench

/// `imgbench run`: hands its words to the run-flag catalog (`RunOptions(parsing:)`), runs the plan
/// they make, writes the results directory. Every flag and every rule about them lives in the
/// library (`RunFlag.catalog`, `BenchmarkPlan.validate`); this command declares none, so adding a
/// flag never touches it.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Scroll a simulated feed and measure each strategy × concurrency limit.",
        usage: "imgbench [run] [<options>]")

    /// Everything after `run`, read by the catalog. A shell completes it from the catalog too:
    /// every flag's spelling and every value of the flags with a fixed set (written into the
    /// script, so completion needs no imgbench process).
    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("run's flags: see imgbench run --help", valueName: "flags"),
              completion: .list(RunFlag.completionWords))
    var words: [String] = []

    func validate() throws {
        _ = try resolved()
    }

    func run() throws {
        let resolved = try resolved(), plan = resolved.plan, output = resolved.output
        let metrics = output.metricsAddress.map { _ in LiveMetrics() }
        let metricsServer = try output.metricsAddress.map { address in try Self.serveMetrics(at: address, metrics!, quiet: output.quiet) }
        // Last of all, whatever ended the run: its final values, scraped once (no wait when no run
        // began: a refused --out has nothing to show).
        var began = false
        defer { metricsServer.map { Self.finishServing($0, waiting: began) } }
        let directory = URL(fileURLWithPath: output.directory ?? "imgbench-results/\(Timestamp.now())")
        let claim: OutputClaim
        do {
            claim = try OutputClaim.claim(directory, force: output.force)
        } catch {
            throw CommandFailure(error.description, status: error.usage ? 64 : 2)
        }
        // A run that fails before writing anything leaves no empty directory behind it.
        var written = false
        defer { claim.release(wroteResults: written) }
        for note in try options.notes { FileHandle.standardError.write(Data("imgbench: \(note)\n".utf8)) }
        let stop = StopRequest()
        let trap = SignalTrap(stopping: stop)
        defer { withExtendedLifetime(trap) {} }
        began = true
        var results = try CommandFailure.catching("the run could not be done") {
            try Benchmark.run(plan, observer: TerminalProgress(quiet: output.quiet), stop: stop, corpusCache: output.corpusCache ? .standard() : nil,
                              metrics: metrics)
        }
        results.thresholdChecks = RunThresholds.evaluate(output.thresholds, on: results.results)
        try CommandFailure.catching("cannot write results to \(directory.path)") { try Reports.write(results, to: directory) }
        written = true
        // The verdict and the table go to stdout, or with --format json to stderr beside the
        // progress, so that stdout is summary.json alone (`imgbench --format json | jq`).
        let json = output.json
        // Every interval at the run's level (a --budget splits 5% over its looks).
        let human = results.atItsConfidence {
            let verdict = results.results.isEmpty ? "" : ReportOpening(results).text
            let table = ComparisonTable(results).text(bold: TerminalStyle.allowsBold(json ? STDERR_FILENO : STDOUT_FILENO))
            let checks = RunThresholds.listing(results.thresholdChecks)
            return verdict + ErrorNotes(results).text + FormatTable(results).text + StageTable(results).text + PipelineNotes(results).text + CacheSizeReport(results).text
                + table + checks + "\n\nResults: \(directory.path)/ (\(Reports.all.map(\.fileName).joined(separator: ", ")))\n"
                // Errors last too: the line nobody scrolls past (the verdict above opened with them).
                + (results.errorWarning.map { "imgbench: \($0)\n" } ?? "")
        }
        if json {
            FileHandle.standardError.write(Data(human.utf8))
            let json = try CommandFailure.catching("cannot render summary.json") { try results.atItsConfidence { try SummaryJSON().render(results) } }
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

    /// `--metrics-address`: bound before the run, so that a port in use or a host that is none is
    /// a usage error (exit 64, one line) before anything is generated or measured.
    private static func serveMetrics(at address: MetricsAddress, _ metrics: LiveMetrics, quiet: Bool) throws -> MetricsServer {
        do {
            let server = try MetricsServer(address: address, metrics: metrics)
            if !quiet { FileHandle.standardError.write(Data("imgbench: live metrics at \(address.url)\n".utf8)) }
            return server
        } catch {
            throw CommandFailure(error.description, status: 64)
        }
    }

    /// The run is over: the final values stay up until one scrape has read them (a Prometheus
    /// scraping every few seconds would otherwise miss the last ones), 5 s at most.
    private static func finishServing(_ server: MetricsServer, waiting: Bool) {
        if waiting && !server.finish(waitingAtMost: 5) {
            FileHandle.standardError.write(Data("imgbench: no scrape read the final metrics at \(server.address.url) within 5 s\n".utf8))
        }
        server.shutdown()
    }

    var options: RunOptions {
        get throws { try Self.usage { () throws(PlanError) in try RunOptions(parsing: words) } }
    }

    /// The plan and the output settings the words make; a mistake is a usage error (exit 64, one line).
    func resolved() throws -> RunFlag.Target {
        let options = try options
        return try Self.usage { () throws(PlanError) in try options.resolved() }
    }

    private static func usage<T>(_ body: () throws(PlanError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `imgbench run --help`, from the catalog.
    static var help: String {
        "OVERVIEW: \(configuration.abstract)\n\nUSAGE: imgbench [run] [<options>]\n\n" + RunFlag.helpText()
            + "\n\nOPTIONS:\n  --version                   Show the version.\n  -h, --help                  Show help information.\n"
    }

    /// The plan `imgbench run ARGUMENTS` would run: how a directory written by imgbench 0.1 (its
    /// recorded arguments) is read, and what a gate side's extra arguments make of a plan.
    static func plan(arguments: [String]) throws -> BenchmarkPlan {
        try RunOptions(parsing: arguments).plan()
    }
}
