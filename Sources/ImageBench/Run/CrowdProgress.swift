import Foundation

/// The progress of a crowd whose users run on threads of their own (`Benchmark.runClients`):
/// each user reports its own counts from its thread, and the crowd reports all of theirs, at
/// most four times a second, as one line. The crowd's time is its clock's since its first
/// vsync, against the load model's duration (or the longest trace of the users made so far):
/// not one user's trace, which a looping user starts again and again.
final class CrowdProgress: Sendable {
    private struct State {
        /// Each user's latest requests and loads in flight (a user that ended: its final count).
        var requests: [Int], inFlight: [Int]
        var begun = 0, ended = 0
        var expectedFrames: Int
        var lastReport: UInt64
    }
    private let state: Locked<State>
    private let origin: UInt64, frameNanoseconds: UInt64
    /// A load model's frames: they decide the crowd's length, whatever its users' traces.
    private let fixedLength: Bool
    private let clock: any RunClock
    private let report: @Sendable (RunProgress) -> Void

    /// `expectedFrames`: the load model's duration in frames; nil: the users' traces decide.
    init(users: Int, origin: UInt64, frameNanoseconds: UInt64, expectedFrames: Int?, clock: any RunClock,
         report: @escaping @Sendable (RunProgress) -> Void) {
        state = Locked(State(requests: Array(repeating: 0, count: users), inFlight: Array(repeating: 0, count: users),
                             expectedFrames: expectedFrames ?? 1, lastReport: origin))
        (self.origin, self.frameNanoseconds, fixedLength) = (origin, frameNanoseconds, expectedFrames != nil)
        self.clock = clock
        self.report = report
    }

    /// User `user` starts scrolling a trace of `traceFrames` frames.
    func began(_ user: Int, traceFrames: Int) {
        state.withLockedValue { state in
            state.begun += 1
            if !fixedLength { state.expectedFrames = max(state.expectedFrames, traceFrames) }
        }
    }

    /// A user's own progress, from its thread: the crowd's line goes out when its time has come.
    func update(_ user: Int, _ progress: RunProgress) {
        let now = clock.now()
        let due = state.withLockedValue { state -> RunProgress? in
            (state.requests[user], state.inFlight[user]) = (progress.requests, progress.inFlight)
            guard now - min(now, state.lastReport) > 250_000_000 else { return nil }
            state.lastReport = now
            return crowd(state, now: now)
        }
        if let due { report(due) }
    }

    /// A user is done: its requests count in full, and none of its loads is in flight.
    func ended(_ user: Int, requests: Int) {
        state.withLockedValue { state in
            (state.requests[user], state.inFlight[user]) = (requests, 0)
            state.ended += 1
        }
    }

    /// Every user is done: the crowd's last line, its time all gone.
    func finish() {
        let last = state.withLockedValue { state in
            var progress = crowd(state, now: clock.now())
            progress = RunProgress(frame: state.expectedFrames, traceFrames: state.expectedFrames, rowsVisited: 0,
                                   requests: progress.requests, displayed: 0, inFlight: 0)
            progress.users = 0
            return progress
        }
        report(last)
    }

    /// The whole crowd as one line: its time, the users scrolling, every user's requests.
    private func crowd(_ state: State, now: UInt64) -> RunProgress {
        let frame = Int((now - min(now, origin)) / frameNanoseconds)
        var progress = RunProgress(frame: min(frame, state.expectedFrames), traceFrames: state.expectedFrames, rowsVisited: 0,
                                   requests: state.requests.reduce(0, +), displayed: 0, inFlight: state.inFlight.reduce(0, +))
        progress.users = state.begun - state.ended
        return progress
    }
}
