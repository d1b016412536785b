import Foundation

/// The work of one job, runnable from a thread or from a task. The pipeline's load of one image is
/// the real one; tests use instrumented work.
protocol LoadWork: Sendable {
    /// Runs on the calling thread, blocking it for the fetch.
    func run()
    /// Runs in the calling task, suspending for the fetch where its transport allows.
    func runAsync() async
    /// Starts the load and returns without waiting for it; `done` runs once it has finished
    /// (on whatever thread finished it).
    func start(then done: @escaping @Sendable () -> Void)
}

extension LoadWork {
    /// Work with no callback form of its own runs on a Dispatch queue.
    func start(then done: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async {
            run()
            done()
        }
    }
}

/// One unit of work a strategy runs: the whole load of one image (fetch, decode, filter, cache,
/// deliver). The strategy decides where and when it runs; the token decides whether.
final class LoadJob: Sendable {
    let id: Int
    let token: LoadToken
    /// Loads for visible rows run before prefetches where a strategy can order its queue.
    let priority: LoadPriority
    private let work: any LoadWork

    init(id: Int, token: LoadToken = LoadToken(), priority: LoadPriority = .visible, work: any LoadWork) {
        self.id = id
        self.token = token
        self.priority = priority
        self.work = work
    }

    func run() { work.run() }
    func runAsync() async { await work.runAsync() }
    func start(then done: @escaping @Sendable () -> Void) { work.start(then: done) }
}

enum LoadPriority: Int, Sendable, Comparable {
    case prefetch = 0
    case visible = 1

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
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
