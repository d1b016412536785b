import ArgumentParser
import Foundation
import ImageBench

/// `imgbench report DIR`: the human-facing reports (report.md) written again from a results
/// directory's data files (clients.csv, histograms.json, the recorded configuration), e.g. after
/// an upgrade of imgbench. The data files themselves are left as they are.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a results directory's report.md and report.html again from its data files.")

    @Argument(help: "The results directory.")
    var directory: String

    @Option(help: "Where to write the reports (default: the results directory itself).")
    var out: String?

    func run() throws {
        let plan = try RecordedPlan.read(directory).unsharded
        var results = try CommandFailure.catching { try ShardMerge.merge([directory], plan: plan, requireAllClients: false).results }
        // The run's thresholds judged again, so the load summary's ✓/✗ are the run's own.
        results.thresholdChecks = RunThresholds.evaluate(SummaryJSON.thresholds(URL(fileURLWithPath: directory)), on: results.results)
        let target = URL(fileURLWithPath: out ?? directory)
        try CommandFailure.catching("cannot write to \(target.path)") {
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            // At the run's own level (a --budget's split), as the run wrote them.
            try results.atItsConfidence { for writer in Reports.humanFacing { try writer.write(results, to: target) } }
        }
        print("Wrote \(Reports.humanFacing.map(\.fileName).joined(separator: ", ")) to \(target.path)/")
    }
}
