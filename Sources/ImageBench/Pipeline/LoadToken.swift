import Synchronization

/// The shared state of one image load between the main loop, which may cancel it, and the worker
/// that runs it. One atomic decides races: a load cancelled before a worker picks it up never
/// starts, and the main loop learns at once whether it cancelled queued or in-flight work.
public final class LoadToken: Sendable {
    enum State: UInt8, Sendable {
        case queued, running, finished, cancelledWhileQueued, cancelledInFlight
    }

    /// What a cancel achieved.
    enum CancelResult: Sendable, Equatable {
        /// The load had not started: no byte fetched, nothing decoded.
        case whileQueued
        /// The load was running; it stops at its next check.
        case inFlight
        /// The load had already finished; nothing to save.
        case tooLate
    }

    private let raw = Atomic<UInt8>(State.queued.rawValue)
    private let cancelHandler = Locked<(@Sendable () -> Void)?>(nil)

    public init() {}

    var state: State { State(rawValue: raw.load(ordering: .acquiring))! }

    var isCancelled: Bool {
        let current = state
        return current == .cancelledWhileQueued || current == .cancelledInFlight
    }

    /// Called by the worker before any work: false if the load was cancelled while queued.
    public func begin() -> Bool {
        raw.compareExchange(expected: State.queued.rawValue, desired: State.running.rawValue,
                            ordering: .acquiringAndReleasing).exchanged
    }

    /// Called by the worker when it is done; false if a cancel arrived while it ran.
    @discardableResult
    func finish() -> Bool {
        raw.compareExchange(expected: State.running.rawValue, desired: State.finished.rawValue,
                            ordering: .acquiringAndReleasing).exchanged
    }

    func cancel() -> CancelResult {
        if raw.compareExchange(expected: State.queued.rawValue, desired: State.cancelledWhileQueued.rawValue,
                               ordering: .acquiringAndReleasing).exchanged {
            return .whileQueued
        }
        if raw.compareExchange(expected: State.running.rawValue, desired: State.cancelledInFlight.rawValue,
                               ordering: .acquiringAndReleasing).exchanged {
            cancelHandler.withLockedValue { $0 }?()
            return .inFlight
        }
        return .tooLate
    }

    /// Runs `handler` when the load is cancelled in flight (at once if it already was): how a
    /// transport that waits in poll() learns it should stop a transfer.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        cancelHandler.withLockedValue { $0 = handler }
        if isCancelled { handler() }
    }
}

/// Watches a response body as it arrives, on the thread running the transfer (a worker's with
/// the blocking transport, the network thread's with multi): progressive display.
protocol BodyObserver: AnyObject, Sendable {
    /// The body so far, after each piece curl hands over (a retry starts a new, shorter one).
    func bodyGrew(_ body: [UInt8])
}
