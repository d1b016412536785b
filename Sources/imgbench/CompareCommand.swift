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

    @Option(help: "Also write the comparison as a self-contained HTML page to this file.")
    var html: String?

    func run() throws {
        let baseResults: ResultsDirectory, newResults: ResultsDirectory
        do {
            baseResults = try ResultsDirectory(path: base)
            newResults = try ResultsDirectory(path: new)
        } catch {
            throw ValidationError(error.description)
        }
        let comparison = ResultsComparison(base: baseResults, new: newResults)
        print(comparison.text, terminator: "")
        if let html {
            do {
                try comparison.html.write(toFile: html, atomically: true, encoding: .utf8)
            } catch {
                FileHandle.standardError.write(Data("imgbench compare: cannot write \(html): \(error.localizedDescription)\n".utf8))
                throw ExitCode(2)
            }
            print("HTML comparison: \(html)")
        }
    }
}
