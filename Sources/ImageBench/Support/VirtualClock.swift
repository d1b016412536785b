/// Time that moves only when the run waits: `sleep(until:)` runs, in order, every event scheduled
/// up to the deadline (each at its own time on the clock), then jumps to the deadline. A frame's
/// work takes no time on it, so a virtual run has no host lateness, no hitches and no noise: the
/// same seed gives the same run to the nanosecond (`--time virtual`).
///
/// Events run on the thread that sleeps (the run loop's), one at a time; an event may schedule or
/// cancel others. Ties run in the order they were scheduled.
final class VirtualClock: RunClock {
    private struct Event {
        let time: UInt64
        let order: UInt64
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: UInt64
        var scheduled = 0 as UInt64
        /// A binary min-heap on (time, order).
        var heap: [Event] = []
        var cancelled: Set<UInt64> = []

        mutating func push(_ event: Event) {
            heap.append(event)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.precedes(heap[child], heap[parent]) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        /// The earliest event due by `deadline`, removed; nil when none is.
        mutating func popDue(by deadline: UInt64) -> Event? {
            while let first = heap.first, first.time <= deadline {
                let last = heap.removeLast()
                if !heap.isEmpty {
                    heap[0] = last
                    var parent = 0
                    while true {
                        let (left, right) = (2 * parent + 1, 2 * parent + 2)
                        var least = parent
                        if left < heap.count && Self.precedes(heap[left], heap[least]) { least = left }
                        if right < heap.count && Self.precedes(heap[right], heap[least]) { least = right }
                        guard least != parent else { break }
                        heap.swapAt(parent, least)
                        parent = least
                    }
                }
                if cancelled.remove(first.order) != nil { continue }
                return first
            }
            return nil
        }

        static func precedes(_ a: Event, _ b: Event) -> Bool { (a.time, a.order) < (b.time, b.order) }
    }

    // A lock although one thread drives it: RunClock is Sendable, and a strategy's worker may
    // read the time.
    private let state: Locked<State>

    /// A clock at `start` (1 s: the run's arithmetic never meets a time of 0).
    init(start: UInt64 = 1_000_000_000) { state = Locked(State(now: start)) }

    func now() -> UInt64 { state.withLockedValue { $0.now } }

    /// A deadline already past runs what is overdue, at the clock's time.
    func sleep(until deadline: UInt64) {
        while let event = state.withLockedValue({ state -> Event? in
            guard let event = state.popDue(by: max(deadline, state.now)) else { return nil }
            state.now = max(state.now, event.time)
            return event
        }) {
            event.action()
        }
        state.withLockedValue { $0.now = max($0.now, deadline) }
    }

    func settle() { sleep(until: now()) }

    /// Runs `action` when the clock reaches `time` (at once on the next sleep if it is past);
    /// returns a handle for `cancel`.
    @discardableResult
    func schedule(at time: UInt64, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLockedValue { state in
            state.scheduled += 1
            state.push(Event(time: time, order: state.scheduled, action: action))
            return state.scheduled
        }
    }

    /// The event `handle` will not run (nothing happens if it has run already).
    func cancel(_ handle: UInt64) {
        state.withLockedValue { state in
            if state.heap.contains(where: { $0.order == handle }) { state.cancelled.insert(handle) }
        }
    }

    /// Events scheduled and not yet run or cancelled.
    var pending: Int { state.withLockedValue { $0.heap.count - $0.cancelled.count } }
}
