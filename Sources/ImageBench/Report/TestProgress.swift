import Foundation

/// How far the whole test has got: every cell, repeat and warm-up of the matrix weighed by its
/// planned seconds (`TestEstimate`), the time since the first cell began, and the time left.
/// Its time comes from the clock it is given, so a test steps it and reads the lines it makes.
///
/// The percentage is planned work done, not time spent: a cell's part moves with its frames
/// (what its run's own clock says), not with the wall clock, so a late machine slows the bar
/// rather than overrunning it. It never shows 100% before `ended()`: a run settles or its last
/// loads finish after its frames are done, and a budget may add rounds, so "done" is only known
/// at the end.
final class TestProgress: Sendable {
    /// What one progress line says about the test.
    struct Reading: Equatable {
        /// The run's place in the matrix, from 1 (warm-up cells included), and the cells known.
        var index: Int, total: Int
        /// 0–99 while running; 100 only once the test has ended.
        var percent: Int
        var elapsedSeconds: Double
        /// Planned seconds left (nil: no plan given).
        var remainingSeconds: Double?
        /// The remaining time is known, not estimated.
        var exact: Bool
        /// Requests of the runs finished so far, every user's.
        var finishedRequests: Int
    }

    private enum Phase { case warmUp, run }
    private struct State {
        var estimate: TestEstimate?
        var began: UInt64?
        var index = 0, total = 0
        var phase = Phase.run
        /// The part of the current phase done, 0–1 (its frames against its trace or duration).
        var phaseFraction = 0.0
        /// The highest percentage shown: progress never goes back.
        var shown = 0
        var finishedRequests = 0
        var ended = false
    }
    private let clock: any RunClock
    private let state = Locked(State())

    init(clock: any RunClock = .monotonic) { self.clock = clock }

    /// The test's plan: its time counts from here.
    func planned(_ estimate: TestEstimate) {
        let now = clock.now()
        state.withLockedValue { ($0.estimate, $0.began) = (estimate, now) }
    }

    /// Run `index` of `total` begins: with its warm-up first where the plan gives it one.
    func started(_ cell: RunCell, index: Int, of total: Int) -> Reading {
        let now = clock.now()
        return state.withLockedValue { state in
            if state.began == nil { state.began = now }
            // A budget's round beyond the plan: weighed as the plan's run of that cell.
            while let estimate = state.estimate, estimate.cells.count <= index { state.estimate!.add(cell) }
            (state.index, state.total, state.phaseFraction) = (index, total, 0)
            state.phase = (state.estimate?.cells[index].warmUpSeconds ?? 0) > 0 ? .warmUp : .run
            return reading(&state, now: now)
        }
    }

    /// A run's progress: `cell` is the warm-up's (repetition 0) until the measured run reports.
    func progressed(_ cell: RunCell, _ progress: RunProgress) -> Reading {
        let now = clock.now()
        return state.withLockedValue { state in
            if state.phase == .warmUp && cell.repetition > 0 { (state.phase, state.phaseFraction) = (.run, 0) }
            state.phaseFraction = max(state.phaseFraction, min(1, Double(progress.frame) / Double(max(1, progress.traceFrames))))
            return reading(&state, now: now)
        }
    }

    /// A run is done: all of it counts, and its requests join the test's.
    func finished(requests: Int) -> Reading {
        let now = clock.now()
        return state.withLockedValue { state in
            (state.phase, state.phaseFraction) = (.run, 1)
            state.finishedRequests += requests
            return reading(&state, now: now)
        }
    }

    /// The test is over (or stopped): only now may it read 100%, and only if every run finished.
    func ended(stopped: Bool) -> Reading {
        let now = clock.now()
        return state.withLockedValue { state in
            state.ended = !stopped
            return reading(&state, now: now)
        }
    }

    private func reading(_ state: inout State, now: UInt64) -> Reading {
        let elapsed = Double(now - min(now, state.began ?? now)) / 1e9
        var fraction: Double, remaining: Double?
        if let estimate = state.estimate, estimate.seconds > 0, state.index < estimate.cells.count {
            let cell = estimate.cells[state.index]
            let before = estimate.cells[..<state.index].reduce(0) { $0 + $1.seconds }
            let done = before + (state.phase == .warmUp
                ? state.phaseFraction * cell.warmUpSeconds
                : cell.warmUpSeconds + state.phaseFraction * cell.runSeconds)
            fraction = done / estimate.seconds
            remaining = max(0, estimate.seconds - done)
        } else {
            // No plan: every run weighs the same, and the time left is not known.
            fraction = (Double(state.index) + state.phaseFraction) / Double(max(1, state.total))
        }
        let percent = state.ended ? 100 : max(state.shown, min(99, Int(fraction * 100)))
        state.shown = percent
        return Reading(index: state.index + 1, total: state.total, percent: percent, elapsedSeconds: elapsed,
                       remainingSeconds: state.ended ? 0 : remaining, exact: state.estimate?.exact ?? false,
                       finishedRequests: state.finishedRequests)
    }
}
