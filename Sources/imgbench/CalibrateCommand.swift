import ArgumentParser
import Foundation
import ImageBench

/// `imgbench calibrate`: measures this host's own time per request for virtual runs
/// (`--host-delay-ms`) and prints it; `--out FILE` also writes it as JSON.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure what this machine adds to every request, for virtual runs' --host-delay-ms.",
        discussion: """
        Runs one real fling on the embedded server's loopback profile (no latency, no link: all the time a \
        request takes there is the host's) and prints the median, per network fetch, of the request's time \
        after its frame's vsync, its queue wait, its time to first byte and its transfer: the frame's work \
        reaching the row, the network thread taking the load, curl and the loopback both ways. A virtual run \
        adds it to every modelled request (--time virtual --host-delay-ms MS). It belongs to this machine, \
        build and libcurl, which it prints beside it. It is measured over HTTP/1.1 in clear text; a virtual run \
        adds the same delay to --tls and --http 2 cells. Then it times the decode to the cell of each of the \
        first --images images of the embedded corpus (--seed; the default jpeg+png mix), three times each on one \
        thread, and each filter on a cell: a virtual run that decodes models its decodes with them (--host-delay-ms \
        FILE; --images 0 skips them). Exit codes: 0 measured, 2 could not measure, 64 usage error, 130/143 stopped.
        """)

    @Option(help: "Rows of the measuring fling (\(Self.rowRange.lowerBound) to \(Self.rowRange.upperBound)).")
    var rows = HostCalibration.defaultRows

    @Option(help: "Images of the embedded corpus whose decodes are timed (\(Self.imageRange.lowerBound) to \(Self.imageRange.upperBound); a feed of R rows uses R/2, at most 2000).")
    var images = HostCalibration.defaultImages

    @Option(help: "The corpus's seed, as the runs' --seed.")
    var seed: UInt64?

    @Option(help: "Also write the calibration as JSON to this file.")
    var out: String?

    static let rowRange = HostCalibration.rowRange
    static let imageRange = HostCalibration.imageRange

    func validate() throws {
        guard Self.rowRange.contains(rows) else {
            throw ValidationError("--rows must be \(Self.rowRange.lowerBound) to \(Self.rowRange.upperBound) (got \(rows))")
        }
        guard Self.imageRange.contains(images) else {
            throw ValidationError("--images must be \(Self.imageRange.lowerBound) to \(Self.imageRange.upperBound) (got \(images))")
        }
    }

    func run() throws {
        let stop = StopRequest()
        let trap = SignalTrap(stopping: stop)
        defer { withExtendedLifetime(trap) {} }
        let calibration = try CommandFailure.catching("the calibration could not be measured") {
            do {
                return try HostCalibration.measure(rows: rows, images: images, seed: seed, observer: TerminalProgress(quiet: false), stop: stop)
            } catch {
                // A stop ends the run wherever it was: it is the stop's exit, not a failure's.
                guard let reason = stop.reason else { throw error }
                throw CommandFailure("stopped by \(reason): nothing was measured", status: SignalTrap.exitStatus(for: reason))
            }
        }
        print(calibration.text)
        if let out {
            try CommandFailure.catching("cannot write \(out)") {
                try calibration.jsonData().write(to: URL(fileURLWithPath: out))
            }
        }
    }
}
