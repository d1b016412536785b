import Foundation
import Testing
@testable import ImageBench

@Suite("OperationQueue strategy")
struct OperationQueueStrategyTests {
    /// A fetcher that is never used for real: these jobs do not fetch.
    final class NoFetcher: ImageFetching {
        func fetch(_ url: String, expectedBytes: Int?, token: LoadToken) throws(FetchError) -> FetchResult {
            throw .connection("unused")
        }
    }

    @Test("a queued load that is cancelled never runs its work")
    func queuedCancelNeverRuns() {
        let strategy = OperationQueueStrategy(maxConcurrentOperationCount: 1, fetchers: CurlFetcherPool(limits: FetchLimits()))
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let ran = Locked<[Int]>([])
        func job(_ id: Int, blocking: Bool) -> LoadJob {
            let token = LoadToken()
            return LoadJob(id: id, token: token) { _ in
                guard token.begin() else { return }
                ran.withLockedValue { $0.append(id) }
                if blocking {
                    started.signal()
                    release.wait()
                }
                token.finish()
            }
        }
        let first = job(1, blocking: true), second = job(2, blocking: false), third = job(3, blocking: false)
        strategy.submit(first)
        started.wait()  // the only slot is taken: 2 and 3 queue
        strategy.submit(second)
        strategy.submit(third)
        #expect(second.token.cancel() == .whileQueued)
        strategy.cancel(second)
        release.signal()
        strategy.waitUntilIdle()
        #expect(ran.withLockedValue { $0 } == [1, 3])
    }

    @Test("never runs more operations at once than its limit, and runs every job once", arguments: [1, 3])
    func respectsLimit(limit: Int) {
        let strategy = OperationQueueStrategy(maxConcurrentOperationCount: limit, fetchers: CurlFetcherPool(limits: FetchLimits()))
        let gauge = ConcurrencyGauge()
        let runs = Locked<[Int: Int]>([:])
        for id in 0..<24 {
            strategy.submit(LoadJob(id: id) { _ in
                gauge.enter()
                Thread.sleep(forTimeInterval: 0.005)
                runs.withLockedValue { $0[id, default: 0] += 1 }
                gauge.leave()
            })
        }
        strategy.waitUntilIdle()
        #expect(gauge.peak <= limit)
        #expect(gauge.peak >= 1)
        #expect(runs.withLockedValue { $0 } == Dictionary(uniqueKeysWithValues: (0..<24).map { ($0, 1) }))
    }
}
