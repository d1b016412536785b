import Foundation

/// Progress on standard error: one line rewritten in place on a terminal, and on a pipe (CI logs)
/// just a line when each run starts and ends.
public final class TerminalProgress: BenchmarkObserver {
    private let interactive: Bool
    private let quiet: Bool
    private let lastCorpusLine = Locked<Int>(-1)

    public init(quiet: Bool = false, interactive: Bool = isatty(STDERR_FILENO) == 1) {
        self.quiet = quiet
        self.interactive = interactive
    }

    public func preparing(_ message: String) {
        emit(message, final: true)
    }

    public func corpusProgress(done: Int, total: Int) {
        guard interactive else { return }
        let shouldPrint = lastCorpusLine.withLockedValue { last in
            defer { last = done }
            return done != last
        }
        if shouldPrint { emit("generating images \(done)/\(total)", final: done == total) }
    }

    public func runStarted(_ cell: RunCell, index: Int, of total: Int) {
        emit("[\(index + 1)/\(total)] \(Self.name(cell)): scrolling…", final: !interactive)
    }

    public func runProgress(_ cell: RunCell, _ progress: RunProgress) {
        guard interactive else { return }
        let percent = min(100, progress.frame * 100 / max(1, progress.traceFrames))
        emit("\(Self.name(cell)): \(percent)%  rows \(progress.rowsVisited)  requests \(progress.requests)  displayed \(progress.displayed)  in flight \(progress.inFlight)", final: false)
    }

    public func runFinished(_ result: RunResult) {
        let s = result.summary
        emit(String(format: "%@: done in %.1f s: %d requests, p95 %.0f ms, %d cancelled, %.1f MB downloaded",
                    Self.name(result.cell), s.durationS, s.requests, s.latencyP95Ms,
                    s.cancelledQueued + s.cancelledInflight, Double(s.bytesDownloaded) / 1e6), final: true)
    }

    private static func name(_ cell: RunCell) -> String {
        "\(cell.strategy.rawValue) ×\(cell.concurrency) " + (cell.repetition == 0 ? "warm-up" : "#\(cell.repetition)")
    }

    private func emit(_ line: String, final: Bool) {
        guard !quiet else { return }
        let text = interactive ? "\r\u{1B}[K" + line + (final ? "\n" : "") : line + "\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
