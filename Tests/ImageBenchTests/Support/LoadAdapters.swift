import Foundation
@testable import ImageBench

/// Blocking and async forms of the one load path, for tests that drive a transport or the
/// pipeline directly (the strategies have their own adapters in `LoadJob`).
extension Transport {
    func fetch(_ url: String, expectedBytes: Int? = nil, attempt: Int = 1, token: LoadToken = LoadToken())
        throws(FetchError) -> FetchResult {
        try fetch(FetchRequest(url: url, expectedBytes: expectedBytes, attempt: attempt, token: token))
    }

    func fetch(_ request: FetchRequest) throws(FetchError) -> FetchResult {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<FetchResult, FetchError>?>(nil)
        start(request) { result in
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLockedValue { $0! }.get()
    }

    func fetchAsync(_ url: String, expectedBytes: Int? = nil, attempt: Int = 1, token: LoadToken = LoadToken())
        async throws(FetchError) -> FetchResult {
        let outcome = Locked<Result<FetchResult, FetchError>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            start(FetchRequest(url: url, expectedBytes: expectedBytes, attempt: attempt, token: token)) { result in
                outcome.withLockedValue { $0 = result }
                continuation.resume()
            }
        }
        return try outcome.withLockedValue { $0! }.get()
    }
}

extension ImagePipeline {
    /// One load on the calling thread, as a worker runs it.
    func load(_ request: LoadRequest, id: Int, token: LoadToken, submittedAt: UInt64,
              transport: any Transport, gauge: ConcurrencyGauge? = nil) -> Step? {
        let task = LoadTask(id: id, request: request, submittedAt: submittedAt, token: token)
        let step = Locked<Step?>(nil)
        WorkerContext.run { context, done in
            start(task, transport: transport, gauge: gauge, on: context) { result in
                step.withLockedValue { $0 = result }
                done()
            }
        }
        return step.withLockedValue { $0 }
    }
}

extension LoadJob {
    /// A job for instrumented work: its task's request is a stand-in no one fetches.
    convenience init(id: Int, token: LoadToken = LoadToken(), priority: LoadPriority = .visible, work: any LoadWork) {
        self.init(LoadTask(id: id, request: LoadRequest(url: "test://\(id)", expectedBytes: nil), priority: priority, token: token),
                  work: work)
    }
}
