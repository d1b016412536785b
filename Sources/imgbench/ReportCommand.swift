import ArgumentParser
import Foundation
import ImageBench

/// `imgbench report DIR`: the human-facing reports (report.md) written again from a results
/// directory's data files (clients.csv, histograms.json, the recorded configuration), e.g. after
/// an upgrade of imgbench. The data files themselves are left as they are.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a results directory's report.md again from its data.")

    @Argument(help: "The results directory.")
    var directory: String

    @Option(help: "Where to write the reports (default: the results directory itself).")
    var out: String?

    func run() throws {
        let fail = { (message: String) -> ExitCode in
            FileHandle.standardError.write(Data("imgbench report: \(message)\n".utf8))
            return ExitCode(2)
        }
        let arguments: [String]
        do {
            arguments = try RecordedConfiguration(directory: directory).arguments
        } catch {
            throw fail(error.description)
        }
        let plan: BenchmarkPlan
        do {
            plan = try RunCommand.plan(recorded: arguments)
        } catch {
            throw fail("cannot read the recorded configuration \(arguments.joined(separator: " ")): \(error)")
        }
        let results: BenchmarkResults
        do {
            results = try ShardMerge.merge([directory], plan: plan, requireAllClients: false).results
        } catch {
            throw fail(error.description)
        }
        let target = URL(fileURLWithPath: out ?? directory)
        do {
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            for writer in Reports.humanFacing { try writer.write(results, to: target) }
        } catch {
            throw fail("cannot write to \(target.path): \(error.localizedDescription)")
        }
        print("Wrote \(Reports.humanFacing.map(\.fileName).joined(separator: ", ")) to \(target.path)/")
    }
}
