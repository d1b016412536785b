import Dispatch
import Foundation
import ImageBench

/// Ctrl-C and SIGTERM during a run: the first asks the benchmark to stop and keep what it
/// measured (reports are written, marked partial); a second one quits at once.
final class SignalTrap {
    private var sources: [any DispatchSourceSignal] = []

    init(stopping stop: StopRequest) {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)  // delivered to the dispatch source instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if stop.isRequested { exit(128 + number) }
                stop.request(reason: name)
                FileHandle.standardError.write(Data("\nimgbench: \(name): stopping, writing what was measured (again to quit at once)\n".utf8))
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The exit status a stop by this signal means: 128 + its number (130 for SIGINT).
    static func exitStatus(for reason: String?) -> Int32 {
        reason == "SIGTERM" ? 128 + SIGTERM : 128 + SIGINT
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
