import Foundation
import Testing
@testable import ImageBench

/// Work that records what happened to it instead of loading an image.
struct InstrumentedWork: LoadWork {
    let body: @Sendable () -> Void

    func start(on context: any LoadContext, then done: @escaping @Sendable () -> Void) {
        context.resume(heavy: true) {
            body()
            done()
        }
    }
}

/// Work that only has a callback form: `start` hands its completion to `body`.
struct CallbackWork: LoadWork {
    let body: @Sendable (@escaping @Sendable () -> Void) -> Void

    func start(on context: any LoadContext, then done: @escaping @Sendable () -> Void) { body(done) }
}

/// Records which jobs ran, how often, and how many ran at once.
final class JobLedger: Sendable {
    let gauge = ConcurrencyGauge()
    private let runs = Locked<[Int: Int]>([:])

    var counts: [Int: Int] { runs.withLockedValue { $0 } }

    func job(_ id: Int, hold: TimeInterval = 0.004, wait: DispatchSemaphore? = nil,
             started: DispatchSemaphore? = nil) -> LoadJob {
        let token = LoadToken()
        return LoadJob(id: id, token: token, work: InstrumentedWork { [self] in
            guard token.begin() else { return }
            gauge.enter()
            runs.withLockedValue { $0[id, default: 0] += 1 }
            started?.signal()
            wait?.wait()
            Thread.sleep(forTimeInterval: hold)
            gauge.leave()
            token.finish()
        })
    }
}

@Suite("Strategies")
struct StrategyTests {
    static let background: [StrategyKind] = [.operationQueue, .gcd, .threads, .async, .events]

    @Test("never runs more jobs at once than its limit, and runs every job exactly once",
          arguments: background, [1, 3])
    func respectsLimit(kind: StrategyKind, limit: Int) async throws {
        try await onOwnThread { try respectsLimitBlocking(kind: kind, limit: limit) }
    }

    func respectsLimitBlocking(kind: StrategyKind, limit: Int) throws {
        let strategy = kind.makeScheduler(concurrency: limit)
        defer { strategy.shutdown() }
        let ledger = JobLedger()
        for id in 0..<30 { strategy.submit(ledger.job(id)) }
        strategy.waitUntilIdle()
        #expect(ledger.gauge.peak <= limit)
        #expect(ledger.gauge.peak >= 1)
        #expect(ledger.counts == Dictionary(uniqueKeysWithValues: (0..<30).map { ($0, 1) }))
    }

    @Test("a queued job that is cancelled never starts", arguments: background)
    func queuedCancelNeverStarts(kind: StrategyKind) async throws {
        try await onOwnThread { try queuedCancelBlocking(kind: kind) }
    }

    func queuedCancelBlocking(kind: StrategyKind) throws {
        let strategy = kind.makeScheduler(concurrency: 1)
        defer { strategy.shutdown() }
        let ledger = JobLedger()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        strategy.submit(ledger.job(0, wait: release, started: started))
        started.wait()  // the only slot is taken: the next jobs queue
        let cancelled = ledger.job(1), kept = ledger.job(2)
        strategy.submit(cancelled)
        strategy.submit(kept)
        #expect(cancelled.token.cancel() == .whileQueued)
        strategy.cancel(cancelled)
        release.signal()
        strategy.waitUntilIdle()
        #expect(ledger.counts == [0: 1, 2: 1])
    }

    @Test("events: jobs that finish inside their own start (cancelled before they began) do not nest the next one's start")
    func eventsSynchronousCompletions() async throws {
        try await onOwnThread {
            let strategy = EventStrategy(limit: 1)
            let held = Locked<(@Sendable () -> Void)?>(nil)
            let ran = Locked(0)
            strategy.submit(LoadJob(id: 0, work: CallbackWork { done in held.withLockedValue { $0 = done } }))
            // Queued behind the held job; each finishes inside its start. Nested, 100,000 of them
            // would overflow the stack of whichever thread finished the first.
            for id in 1...100_000 {
                strategy.submit(LoadJob(id: id, work: CallbackWork { done in
                    ran.withLockedValue { $0 += 1 }
                    done()
                }))
            }
            let release = try #require(held.withLockedValue { $0 })
            release()
            strategy.waitUntilIdle()
            #expect(ran.withLockedValue { $0 } == 100_000)
        }
    }

    @Test("the main-thread control runs each job inside submit")
    func mainThreadRunsInline() {
        let strategy = MainThreadStrategy()
        #expect(strategy.runsInline)
        let ledger = JobLedger()
        strategy.submit(ledger.job(7, hold: 0))
        #expect(ledger.counts == [7: 1])
        #expect(ledger.gauge.peak == 1)
    }
}
