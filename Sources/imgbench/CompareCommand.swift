import ArgumentParser
import Foundation
import ImageBench

/// `imgbench compare BASE NEW`: two results directories side by side.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Print every metric two results directories share, with its relative change.")

    @Argument(help: "The results directory to compare against.")
    var base: String

    @Argument(help: "The results directory to compare.")
    var new: String

    @Flag(name: .customLong("allow-config-change"), help: "Compare even when the two ran different configurations.")
    var allowConfigChange = false

    @Option(help: "Also write the comparison as a self-contained HTML page to this file.")
    var html: String?

    func run() throws {
        let baseResults: ResultsDirectory, newResults: ResultsDirectory
        do {
            baseResults = try ResultsDirectory(path: base)
            newResults = try ResultsDirectory(path: new)
        } catch {
            throw ValidationError(error.description)  // a directory that is none is a usage error (64)
        }
        let comparison = ResultsComparison(base: baseResults, new: newResults)
        // Like with like: the same settings (cells are matched one by one), unless told otherwise.
        if let basePlan = try? RecordedPlan.read(base), let newPlan = try? RecordedPlan.read(new) {
            try CommandFailure.requireSameConfiguration(basePlan.configurationDifferences(from: newPlan), of: "directories",
                                                        allowed: allowConfigChange)
        } else {
            print("configurations not checked: a directory records no plan")
        }
        print(comparison.text, terminator: "")
        if let html {
            try CommandFailure.catching("cannot write \(html)") { try comparison.html.write(toFile: html, atomically: true, encoding: .utf8) }
            print("HTML comparison: \(html)")
        }
    }
}
