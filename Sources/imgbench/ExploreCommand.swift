import ArgumentParser
import Foundation
import ImageBench

/// `imgbench explore`: hands its words to `ExploreOptions` (run flags, `--network` lists,
/// `--confirm`, `--current`), runs the exploration, prints it and writes explore.md.
struct ExploreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Search every combination of the run flags' lists in virtual time, then confirm the best with real runs.",
        discussion: """
        Every list among the run flags is a dimension of the space: --concurrency 1,2,4,6,8 --cancel none,offscreen \
        --prefetch 0,5,10 --memory-cache-mb 16,64 --http 1.1,2; --network 3g,wifi explores each network apart. Each \
        combination runs in virtual time (--time virtual: the network modelled, seconds per cell; decodes on modelled \
        cores, each image's calibrated time). The model's best cells (--confirm, default 3) and your own settings \
        (--current "--concurrency 5 --cancel none"; default: imgbench's defaults) then run for real on the same trace, \
        and the verdict is theirs, with the model's error on each beside it. First, this machine's own time per \
        request and each image's decode are measured (what `imgbench calibrate` does) and given to the model; \
        --host-delay-ms FILE gives a calibration instead (a number: the delay alone, with --no-decode), and --confirm 0 \
        measures nothing (so it needs a FILE, or --no-decode).

        Writes DIR/explore.md, DIR/calibration.json, DIR/model-NETWORK/ and DIR/confirm-NETWORK/ (results directories) under --out \
        (default imgbench-results/explore-<timestamp>). Exit codes: 0 done, 2 could not run, 64 usage error.
        """)

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("run flags, --confirm K, --current \"FLAGS\"", valueName: "flags"))
    var words: [String] = []

    func validate() throws {
        _ = try options()
    }

    func run() throws {
        let options = try options()
        let directory = URL(fileURLWithPath: options.output.directory ?? "imgbench-results/explore-\(Timestamp.now())")
        let claim: OutputClaim
        do {
            claim = try OutputClaim.claim(directory, force: options.output.force)
        } catch {
            throw CommandFailure(error.description, status: error.usage ? 64 : 2)
        }
        var written = false
        defer { claim.release(wroteResults: written) }
        let stop = StopRequest()
        let trap = SignalTrap(stopping: stop)
        defer { withExtendedLifetime(trap) {} }
        let quiet = options.output.quiet
        let exploration = try CommandFailure.catching("the exploration could not be done") {
            try Exploration.run(options, into: directory, observer: TerminalProgress(quiet: quiet), stop: stop,
                                corpusCache: options.output.corpusCache ? .standard() : nil) { line in
                if !quiet { FileHandle.standardError.write(Data("imgbench explore: \(line)\n".utf8)) }
            }
        }
        let text = exploration.text
        try CommandFailure.catching("cannot write \(directory.path)/explore.md") {
            try Data(text.utf8).write(to: directory.appendingPathComponent("explore.md"))
        }
        written = true
        print(text + "\nResults: \(directory.path)/ (\(exploration.written(in: directory).joined(separator: ", ")))")
        if let reason = exploration.stoppedBy {
            throw CommandFailure("stopped by \(reason): the exploration is incomplete", status: SignalTrap.exitStatus(for: reason))
        }
    }

    private func options() throws -> ExploreOptions {
        do {
            return try ExploreOptions(parsing: words)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
