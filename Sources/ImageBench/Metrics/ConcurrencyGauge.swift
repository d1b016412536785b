/// Counts loads actually running (not queued) and integrates the count over time, so a run can
/// report the concurrency it achieved (mean and peak) beside the limit it configured: on Linux the
/// two differ (Dispatch's pool grows slowly when work blocks).
final class ConcurrencyGauge: Sendable {
    private struct State {
        var current = 0
        var peak = 0
        var area: Double = 0  // load-nanoseconds
        var lastChange: UInt64
        let start: UInt64
        /// The first enter and the last time the count fell to zero: the span a stage was in use.
        var firstEnter: UInt64?
        var lastIdle: UInt64?
    }

    private let state: Locked<State>
    private let clock: any RunClock

    init(clock: any RunClock = .monotonic) {
        self.clock = clock
        let start = clock.now()
        state = Locked(State(lastChange: start, start: start))
    }

    func enter() { change(by: 1) }
    func leave() { change(by: -1) }

    var current: Int { state.withLockedValue { $0.current } }
    var peak: Int { state.withLockedValue { $0.peak } }

    /// The time-weighted mean number of running loads from the gauge's start until `end`.
    func mean(until end: UInt64? = nil) -> Double {
        let end = end ?? clock.now()
        return state.withLockedValue { s in
            let area = s.area + Double(s.current) * Double(end - min(end, s.lastChange))
            let span = Double(end - min(end, s.start))
            return span > 0 ? area / span : 0
        }
    }

    /// The time-weighted mean over the span the gauge was in use, from its first enter to the
    /// last time it fell idle (or `end`, if busy then): what a stage achieved while it had work,
    /// not diluted by the time before its first load or after its last. 0 if never entered.
    func activeMean(until end: UInt64? = nil) -> Double {
        let end = end ?? clock.now()
        return state.withLockedValue { s in
            guard let first = s.firstEnter else { return 0 }
            let last = s.current > 0 ? end : (s.lastIdle ?? end)
            let area = s.area + Double(s.current) * Double(last - min(last, s.lastChange))
            let span = Double(last - min(last, first))
            return span > 0 ? area / span : 0
        }
    }

    private func change(by delta: Int) {
        let now = clock.now()
        state.withLockedValue { s in
            s.area += Double(s.current) * Double(now - min(now, s.lastChange))
            s.lastChange = now
            s.current += delta
            s.peak = max(s.peak, s.current)
            if s.firstEnter == nil && delta > 0 { s.firstEnter = now }
            if s.current == 0 { s.lastIdle = now }
        }
    }
}
