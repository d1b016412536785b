import Foundation

/// Progress on standard error: on a terminal, one line rewritten in place with a bar for the
/// whole test (every cell, repeat and warm-up of the matrix, `TestProgress`), the time since it
/// began and the time left, and the current run's users, requests and loads in flight; on a pipe
/// (CI logs), one line per finished run of the matrix, nothing between. 100% is shown once, on
/// the terminal's last progress line, when every run is done.
public final class TerminalProgress: BenchmarkObserver {
    private let interactive: Bool
    private let quiet: Bool
    private let lastCorpusLine = Locked<Int>(-1)
    private let test: TestProgress
    /// Where lines go: standard error, or a test's buffer.
    private let write: @Sendable (String) -> Void

    public convenience init(quiet: Bool = false, interactive: Bool = TerminalStyle.allowsRedraw(STDERR_FILENO)) {
        self.init(quiet: quiet, interactive: interactive, clock: .monotonic) { FileHandle.standardError.write(Data($0.utf8)) }
    }

    /// `clock`: where the test's elapsed time is read (a test's own steps it).
    init(quiet: Bool = false, interactive: Bool, clock: any RunClock, write: @escaping @Sendable (String) -> Void) {
        self.quiet = quiet
        self.interactive = interactive
        test = TestProgress(clock: clock)
        self.write = write
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

    public func testPlanned(_ estimate: TestEstimate) { test.planned(estimate) }

    public func runStarted(_ cell: RunCell, index: Int, of total: Int) {
        let reading = test.started(cell, index: index, of: total)
        guard interactive else { return }
        emit("\(Self.place(reading)) \(Self.name(cell)): starting…  \(Self.time(reading))", final: false)
    }

    public func runProgress(_ cell: RunCell, _ progress: RunProgress) {
        let reading = test.progressed(cell, progress)
        guard interactive else { return }
        let who = progress.users.map { "users \($0)" } ?? "rows \(progress.rowsVisited)"
        emit("\(Self.place(reading)) \(Self.name(cell)) \(Self.bar(Double(reading.percent) / 100)) \(reading.percent)%  "
             + "\(Self.time(reading))  \(who)  requests \(progress.requests)  in flight \(progress.inFlight)", final: false)
    }

    public func runFinished(_ result: RunResult) {
        let s = result.summary
        let reading = test.finished(requests: s.requests)
        // The gate reads this line ("[2/6] gcd ×5 #1: done in"): its start stays as it is.
        emit(String(format: "%@ %@: done in %.1f s: %d requests, placeholder mean %.1f ms, display p95 %.0f ms, %d cancelled, %.1f MB downloaded",
                    Self.place(reading), Self.name(result.cell), s.durationS, s.requests, s.placeholder.mean, s.display.p95,
                    s.cancelledQueued + s.cancelledInflight, Double(s.bytesDownloaded) / 1e6), final: true)
    }

    /// The bar's last line, on a terminal only: a log already has a line per run, and what
    /// follows it there (the verdict, its errors first) opens the output.
    public func testEnded(stoppedBy: String?) {
        let reading = test.ended(stopped: stoppedBy != nil)
        guard interactive else { return }
        let runs = "\(reading.total) run\(reading.total == 1 ? "" : "s")"
        let line = stoppedBy.map { "test stopped (\($0)) at \(reading.percent)% after \(Self.seconds(reading.elapsedSeconds))" }
            ?? "test done: \(reading.percent)%, \(runs) in \(Self.seconds(reading.elapsedSeconds))"
        emit(line + ", \(reading.finishedRequests) requests", final: true)
    }

    /// "[3/12]": the run's place in the matrix (warm-up cells included).
    private static func place(_ reading: TestProgress.Reading) -> String { "[\(reading.index)/\(reading.total)]" }

    /// "12 s, about 33 s left": the test's time so far and to come ("about" where the plan
    /// only estimates it: a trace's settle, another user's trace).
    /// As a stopwatch and a countdown read: elapsed rounded down, the time left up, so "0 s left"
    /// is only read at the plan's end.
    static func time(_ reading: TestProgress.Reading) -> String {
        let elapsed = seconds(reading.elapsedSeconds, rounded: .down)
        guard let remaining = reading.remainingSeconds else { return elapsed }
        return "\(elapsed), \(reading.exact ? "" : "about ")\(seconds(remaining, rounded: .up)) left"
    }

    /// Whole seconds, minutes past two of them ("47 s", "3 min 05 s", "1 h 02 min").
    static func seconds(_ value: Double, rounded rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> String {
        let whole = Int(value.rounded(rule))
        if whole < 120 { return "\(whole) s" }
        if whole < 3_600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3_600, whole % 3_600 / 60)
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
        write(interactive ? "\r\u{1B}[K" + line + (final ? "\n" : "") : line + "\n")
    }
}
