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

    @Flag(name: .customLong("allow-config-change"), help: "Compare even when the two scrolled different traces or ran other servers (the seed, rows, scroll, network or source differ): nothing pairs then.")
    var allowConfigChange = false

    @Flag(help: "Every metric both share (default: the ones that fit a screen: what the user feels, what it costs, errors).")
    var all = false

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
        let comparison = ResultsComparison(base: baseResults, new: newResults, all: all)
        // Like with like: the same trace and server, cell by cell. Settings a user varies on purpose
        // (--cancel, --prefetch, …) are what the comparison is about: named first, not refused.
        if let basePlan = try? RecordedPlan.read(base), let newPlan = try? RecordedPlan.read(new) {
            try CommandFailure.requireSameTime(basePlan, newPlan, of: "directories")
            let pairing = PlanPairing(base: basePlan, new: newPlan)
            if !pairing.unpaired.isEmpty && !allowConfigChange {
                throw CommandFailure("the two directories did not scroll the same trace on the same server (\(pairing.unpaired.joined(separator: "; "))), "
                    + "so their cells do not pair (pass --allow-config-change to compare anyway)")
            }
            if !pairing.named.isEmpty { print("paired on the same trace; differs in: \(pairing.named.joined(separator: "; "))") }
            if !pairing.unpaired.isEmpty { print("configurations differ (allowed): \(pairing.unpaired.joined(separator: "; "))") }
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
