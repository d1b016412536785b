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
                      DecodersCommand.self, ExploreCommand.self, CalibrateCommand.self,
                      ReportCommand.self],
        defaultSubcommand: RunCommand.self)

    /// ArgumentParser's own entry point, except that a usage error is one line (the reason,
    /// naming the flag) and exit 64, and a `CommandFailure` one line and its status: CI logs and
    /// scripts want the reason, not the usage screen.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let subcommands = configuration.subcommands.compactMap { $0.configuration.commandName }
        // `imgbench --help`: the subcommands, then the options of run, the default one.
        if arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
            print(helpMessage(columns: nil) + "\n\nOPTIONS OF RUN (THE DEFAULT SUBCOMMAND):\n\n" + RunCommand.help)
            return
        }
        // run's help comes from the run-flag catalog: run captures its words, so the parser
        // would show only that.
        let runWords = arguments.first == "run" ? Array(arguments.dropFirst()) : arguments.first?.hasPrefix("-") == true ? arguments : nil
        if arguments == ["help", "run"] || runWords.map(RunOptions.asksForHelp) == true {
            print(RunCommand.help, terminator: "")
            return
        }
        // A word where a subcommand goes that is none of them is a typo, not run's argument.
        if let first = arguments.first, !first.hasPrefix("-"), !subcommands.contains(first), first != "help" {
            FileHandle.standardError.write(Data("imgbench: unknown subcommand '\(first)' (subcommands: \(subcommands.joined(separator: ", ")); see imgbench --help)\n".utf8))
            exit(withError: ExitCode.validationFailure)
        }
        let named = arguments.first.flatMap { subcommands.contains($0) && $0 != "run" ? $0 : nil }
        var name = "imgbench"
        do {
            var command = try parseAsRoot()
            let subcommand = type(of: command).configuration.commandName ?? "run"
            if subcommand != RunCommand.configuration.commandName { name += " " + subcommand }
            try command.run()
        } catch let failure as CommandFailure {
            // Messages may carry a peer's or a file's text (a URL, a path): one line, escaped and cut.
            FileHandle.standardError.write(Data("\(name): \(UntrustedText.line(failure.message, limit: 1_000))\n".utf8))
            exit(withError: ExitCode(failure.status))
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            let reason = message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
            // The help of the subcommand the error is about.
            let help = named.map { "imgbench \($0) --help" } ?? "imgbench --help"
            FileHandle.standardError.write(Data("\(named.map { "imgbench \($0)" } ?? "imgbench"): \(UntrustedText.line(reason, limit: 1_000)) (see \(help))\n".utf8))
            exit(withError: ExitCode.validationFailure)
        }
    }
}
