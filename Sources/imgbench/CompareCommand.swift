import ArgumentParser
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

    func run() throws {
        let baseResults: ResultsDirectory, newResults: ResultsDirectory
        do {
            baseResults = try ResultsDirectory(path: base)
            newResults = try ResultsDirectory(path: new)
        } catch {
            throw ValidationError(error.description)
        }
        print(ResultsComparison(base: baseResults, new: newResults).text, terminator: "")
    }
}
