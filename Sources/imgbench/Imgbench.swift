import ArgumentParser
import Foundation
import ImageBench

@main
struct Imgbench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgbench",
        abstract: "Benchmark image pipelines under a simulated scrolling feed.",
        version: ImageBenchVersion.current,
        subcommands: [RunCommand.self, CompareCommand.self, GateCommand.self, ServeCommand.self, CorpusCommand.self, MergeCommand.self,
                      ReportCommand.self],
        defaultSubcommand: RunCommand.self)

    /// ArgumentParser's own entry point, except that a usage error is one line (the reason,
    /// naming the flag) and exit 64, and a `CommandFailure` one line and its status: CI logs and
    /// scripts want the reason, not the usage screen.
    static func main() {
        var name = "imgbench"
        do {
            var command = try parseAsRoot()
            let subcommand = type(of: command).configuration.commandName ?? "run"
            if subcommand != RunCommand.configuration.commandName { name += " " + subcommand }
            try command.run()
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("\(name): \(failure.message)\n".utf8))
            exit(withError: ExitCode(failure.status))
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            let reason = message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
            FileHandle.standardError.write(Data("imgbench: \(reason) (see imgbench --help)\n".utf8))
            exit(withError: ExitCode.validationFailure)
        }
    }
}
