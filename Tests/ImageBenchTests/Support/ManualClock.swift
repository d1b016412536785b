import Foundation
@testable import ImageBench

/// A clock the test moves: `sleep(until:)` jumps to the deadline at once, then runs `advanced`
/// (the test's turn, between two frames of the run on it). Nothing else moves it, so every time a
/// run reads (stage times, placeholders, frames) is a whole number of the steps it took.
final class ManualClock: RunClock {
    private let time: Locked<UInt64>
    private let hook = Locked<(@Sendable (UInt64) -> Void)?>(nil)

    init(start: UInt64 = 1_000_000_000) { time = Locked(start) }

    func now() -> UInt64 { time.withLockedValue { $0 } }

    func sleep(until deadline: UInt64) {
        let now = time.withLockedValue { now in
            now = max(now, deadline)
            return now
        }
        hook.withLockedValue { $0 }?(now)
    }

    /// Runs `body` each time the clock has moved.
    func onAdvance(_ body: @escaping @Sendable (_ now: UInt64) -> Void) { hook.withLockedValue { $0 = body } }
}

/// A transport that answers when the test says: it keeps every request, with the time it came
/// in, until `answer(startedBefore:)` gives the bodies of those that came in before a time. A
/// cancelled request is answered at once, as curl's abort is. Bodies come from `bodies` by URL.
final class HeldTransport: Transport {
    let kind = TransportKind.multi
    let blocksCaller = false
    private let bodies: [String: [UInt8]]
    private let clock: any RunClock
    private struct Held {
        let request: FetchRequest
        let startedAt: UInt64
        let completion: FetchCompletion
    }
    private let held = Locked<[Held]>([])
    /// Requests answered so far, and how many were cancelled.
    let counts = Locked((answered: 0, cancelled: 0))

    init(bodies: [String: [UInt8]], clock: any RunClock) {
        self.bodies = bodies
        self.clock = clock
    }

    func start(_ request: FetchRequest, completion: @escaping FetchCompletion) {
        held.withLockedValue { $0.append(Held(request: request, startedAt: clock.now(), completion: completion)) }
        request.token.onCancel { [self] in
            let cancelled = held.withLockedValue { held -> Held? in
                guard let index = held.firstIndex(where: { $0.request.token === request.token }) else { return nil }
                return held.remove(at: index)
            }
            guard let cancelled else { return }
            counts.withLockedValue { $0.cancelled += 1 }
            cancelled.completion(.failure(.cancelled(received: 0)))
        }
    }

    /// Answers, in the order they came in, the requests that came in before `time`.
    func answer(startedBefore time: UInt64) {
        let due = held.withLockedValue { held in
            let due = held.filter { $0.startedAt < time }
            held.removeAll { $0.startedAt < time }
            return due
        }
        for request in due {
            counts.withLockedValue { $0.answered += 1 }
            guard let body = bodies[request.request.url] else {
                request.completion(.failure(.httpStatus(404)))
                continue
            }
            request.completion(.success(FetchResult(bytes: body, timeToFirstByte: 0, transfer: 0)))
        }
    }

    var waiting: Int { held.withLockedValue { $0.count } }

    func shutdown() {}
}
