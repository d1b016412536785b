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

    @Argument(help: "The shards' results directories.")
    var shards: [String]

    func validate() throws {
        guard !shards.isEmpty else { throw ValidationError("give the shards' results directories") }
    }

    func run() throws {
        let fail = { (message: String) -> ExitCode in
            FileHandle.standardError.write(Data("imgbench merge: \(message)\n".utf8))
            return ExitCode(2)
        }
        // Every shard must have run the same configuration: the same arguments but --shard.
        var configurations: [[String]] = []
        for shard in shards {
            do {
                configurations.append(RunCommand.removing(options: ["--shard"], from: try RecordedConfiguration(directory: shard).arguments))
            } catch {
                throw fail(error.description)
            }
        }
        guard let arguments = configurations.first, configurations.allSatisfy({ $0 == arguments }) else {
            throw fail("the shards ran different configurations: \(Set(configurations.map { $0.joined(separator: " ") }).sorted().joined(separator: " | "))")
        }
        let plan: BenchmarkPlan
        do {
            plan = try RunCommand.plan(recorded: arguments)
        } catch {
            throw fail("cannot read the shards' configuration \(arguments.joined(separator: " ")): \(error)")
        }
        let merged: ShardMerge.Merged
        do {
            merged = try ShardMerge.merge(shards, plan: plan)
        } catch {
            throw fail(error.description)
        }
        let results = merged.results
        let directory = URL(fileURLWithPath: out)
        do {
            try Reports.write(results, to: directory)
            // Written from the shards' own text: every column as they measured it.
            try merged.requestsCSV.write(to: directory.appendingPathComponent("requests.csv"), atomically: true, encoding: .utf8)
        } catch {
            throw fail("cannot write \(out): \(error.localizedDescription)")
        }
        print(ComparisonTable(results.results).text(bold: isatty(STDOUT_FILENO) == 1))
        print("\nMerged \(shards.count) shards (\(plan.settings.clients) clients): \(directory.path)/")
    }
}
