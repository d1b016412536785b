import Foundation

/// Progress on standard error: on a terminal, one line rewritten in place with a progress bar and
/// the run's ETA; on a pipe (CI logs), one line per finished run of the matrix, nothing between.
public final class TerminalProgress: BenchmarkObserver {
    private let interactive: Bool
    private let quiet: Bool
    private let lastCorpusLine = Locked<Int>(-1)
    /// The run in progress: its place in the matrix and when it started (monotonic ns).
    private let current = Locked<(index: Int, total: Int, started: UInt64)>((0, 0, 0))

    public init(quiet: Bool = false, interactive: Bool = TerminalStyle.allowsRedraw(STDERR_FILENO)) {
        self.quiet = quiet
        self.interactive = interactive
    }

    public func preparing(_ message: String) {
        // It names sources and manifests' URLs: text from outside, shown escaped and cut.
        emit(UntrustedText.line(message, limit: 1_000), final: true)
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
        current.withLockedValue { $0 = (index, total, MonotonicClock().now()) }
        guard interactive else { return }
        emit("\(place) \(Self.name(cell)): starting…", final: false)
    }

    public func runProgress(_ cell: RunCell, _ progress: RunProgress) {
        guard interactive else { return }
        let fraction = min(1, Double(progress.frame) / Double(max(1, progress.traceFrames)))
        let elapsed = Double(MonotonicClock().now() - current.withLockedValue { $0.started }) / 1e9
        let eta = fraction > 0.02 ? String(format: "ETA %.0f s", elapsed * (1 - fraction) / fraction) : "ETA …"
        let who = progress.users.map { "users \($0)" } ?? "rows \(progress.rowsVisited)"
        emit("\(place) \(Self.name(cell)) \(Self.bar(fraction)) \(Int(fraction * 100))%  \(eta)  \(who)  "
             + "requests \(progress.requests)  in flight \(progress.inFlight)", final: false)
    }

    public func runFinished(_ result: RunResult) {
        let s = result.summary
        emit(String(format: "%@ %@: done in %.1f s: %d requests, placeholder mean %.1f ms, display p95 %.0f ms, %d cancelled, %.1f MB downloaded",
                    place, Self.name(result.cell), s.durationS, s.requests, s.placeholder.mean, s.display.p95,
                    s.cancelledQueued + s.cancelledInflight, Double(s.bytesDownloaded) / 1e6), final: true)
    }

    /// "[3/12]": the run's place in the matrix (warm-ups included).
    private var place: String {
        let (index, total, _) = current.withLockedValue { $0 }
        return "[\(index + 1)/\(total)]"
    }

    static func bar(_ fraction: Double, width: Int = 20) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    private static func name(_ cell: RunCell) -> String {
        "\(cell.name) " + (cell.repetition == 0 ? "warm-up" : "#\(cell.repetition)")
    }

    private func emit(_ line: String, final: Bool) {
        guard !quiet else { return }
        let text = interactive ? "\r\u{1B}[K" + line + (final ? "\n" : "") : line + "\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
