import ArgumentParser
import Foundation
import ImageBench

@main
struct Imgbench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgbench",
        abstract: "Benchmark image pipelines under a simulated scrolling feed.",
        version: ImageBenchVersion.current,
        subcommands: [RunCommand.self, CompareCommand.self, GateCommand.self],
        defaultSubcommand: RunCommand.self)
}
