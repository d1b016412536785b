import ArgumentParser
import Foundation
import ImageBench

/// `imgbench merge --out DIR SHARD…`: shards of one configuration joined into one results directory.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the results directories of shards (--shard I/N) into one, merging latency histograms exactly.")

    @Option(help: "The merged results directory to write.")
    var out: String

    @Option(name: .customLong("threshold"), help: "A limit the merged result must keep, as imgbench run --threshold (repeatable); exit 1 when one breaks.")
    var thresholds: [String] = []

    @Argument(help: "The shards' results directories.")
    var shards: [String]

    func validate() throws {
        guard !shards.isEmpty else { throw ValidationError("give the shards' results directories") }
        _ = try parsedThresholds()
    }

    private func parsedThresholds() throws -> [Threshold] {
        do {
            return try RunThresholds.parse(thresholds)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        // Every shard must have run the same plan but for --shard.
        let plans = try shards.map { try RecordedPlan.read($0).unsharded }
        for (shard, other) in zip(shards.dropFirst(), plans.dropFirst()) where other != plans[0] {
            throw CommandFailure("the shards ran different configurations: \(shard) differs from \(shards[0]) in "
                                 + plans[0].differences(from: other).joined(separator: "; "))
        }
        var merged = try CommandFailure.catching { try ShardMerge.merge(shards, plan: plans[0]) }
        merged.results.thresholdChecks = RunThresholds.evaluate(try parsedThresholds(), on: merged.results.results)
        let results = merged.results
        let directory = URL(fileURLWithPath: out)
        try CommandFailure.catching("cannot write \(out)") {
            try merged.write(to: directory)
        }
        // The shards' users as one test: its load summary first, as a run prints it.
        print(results.loadSummaryText + ComparisonTable(results).text(bold: TerminalStyle.allowsBold(STDOUT_FILENO)) + RunThresholds.listing(results.thresholdChecks))
        print("\nMerged \(shards.count) shards (\(plans[0].settings.clients) clients): \(directory.path)/")
        if let broken = RunThresholds.brokenMessage(results.thresholdChecks) { throw CommandFailure(broken, status: 1) }
    }
}
