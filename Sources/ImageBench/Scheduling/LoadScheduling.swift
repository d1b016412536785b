import Foundation

/// The work of one job: it starts, goes on in `context` whenever it waited for something, and
/// calls `done` once it is over. The pipeline's load of one image is the real one; tests use
/// instrumented work.
protocol LoadWork: Sendable {
    func start(on context: any LoadContext, then done: @escaping @Sendable () -> Void)
}

/// One unit of work a strategy runs: the whole load of one image (fetch, decode, filter, cache,
/// deliver). The strategy decides where and when it runs; the task's token decides whether. How
/// the strategy waits for it is one of three thin adapters over the same `start`.
final class LoadJob: Sendable {
    let task: LoadTask
    private let work: any LoadWork

    init(_ task: LoadTask, work: any LoadWork) {
        self.task = task
        self.work = work
    }

    var id: Int { task.id }
    var token: LoadToken { task.token }
    var priority: LoadPriority { task.priority }

    /// Runs on the calling thread, blocking it until the load is over.
    func run() { WorkerContext.run { context, done in work.start(on: context, then: done) } }
    /// Runs in the calling task, suspending where the load waits.
    func runAsync() async { await TaskContext.run { context, done in work.start(on: context, then: done) } }
    /// Starts the load and returns without waiting for it; `done` runs once it has finished
    /// (on whatever thread finished it).
    func start(then done: @escaping @Sendable () -> Void) { work.start(on: CallbackContext(), then: done) }
}

/// The seam every strategy implements: how loads run concurrently. All strategies share the
/// transport, decoders, filters, caches and policies; only this differs.
protocol LoadScheduling: Sendable {
    /// Queues `job`; it runs when the strategy's limit allows.
    func submit(_ job: LoadJob)
    /// Told after `job.token` was cancelled, so the strategy can drop queued work at once
    /// (`Operation.cancel()`, `DispatchWorkItem.cancel()`); running work stops at its own checks.
    func cancel(_ job: LoadJob)
    /// Blocks until every submitted job has run or been dropped.
    func waitUntilIdle()
    /// Stops the strategy's threads; nothing may be submitted after.
    func shutdown()
    /// True when `submit` runs the job before returning (the main-thread control), so its result
    /// is already waiting when `submit` returns.
    var runsInline: Bool { get }
}

extension LoadScheduling {
    var runsInline: Bool { false }
    func shutdown() {}
}

/// The strategies imgbench compares, by their command-line names.
enum StrategyKind: String, Sendable, Codable, CaseIterable {
    case operationQueue = "operation-queue"
    case gcd
    case threads
    case async
    case events
    case mainThread = "main-thread"

    /// The default comparison: the three classic answers.
    static let defaults: [StrategyKind] = [.operationQueue, .gcd, .threads]

    /// Builds the strategy with at most `concurrency` loads running at once.
    func makeScheduler(concurrency: Int) -> any LoadScheduling {
        switch self {
        case .operationQueue: OperationQueueStrategy(maxConcurrentOperationCount: concurrency)
        case .gcd: GCDStrategy(width: concurrency)
        case .threads: ThreadPoolStrategy(threads: concurrency)
        case .async: AsyncStrategy(limit: concurrency)
        case .events: EventStrategy(limit: concurrency)
        case .mainThread: MainThreadStrategy()
        }
    }
}
