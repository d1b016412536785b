import Foundation

/// A fixed pool of `Thread`s pulling loads from one shared queue, visible rows first: the way to
/// get exactly N concurrent blocking downloads on any platform, because the threads exist from the
/// start (Dispatch and OperationQueue grow their pools on demand). Cancelling a queued load
/// removes it from the queue.
///
/// `@unchecked Sendable`: `visible`, `prefetch`, `running` and `stopping` are only touched while
/// holding `condition`.
public final class ThreadPoolStrategy: LoadScheduling, @unchecked Sendable {
    private let condition = NSCondition()
    private var visible: [LoadJob] = []
    private var prefetch: [LoadJob] = []
    private var running = 0
    private var stopping = false

    public init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in work() }
            thread.name = "imgbench.worker.\(index)"
            thread.start()
        }
    }

    public func submit(_ job: LoadJob) {
        condition.lock()
        if job.priority == .visible { visible.append(job) } else { prefetch.append(job) }
        condition.signal()
        condition.unlock()
    }

    public func cancel(_ job: LoadJob) {
        condition.lock()
        visible.removeAll { $0 === job }
        prefetch.removeAll { $0 === job }
        if visible.isEmpty && prefetch.isEmpty && running == 0 { condition.broadcast() }
        condition.unlock()
    }

    public func waitUntilIdle() {
        condition.lock()
        while !(visible.isEmpty && prefetch.isEmpty && running == 0) { condition.wait() }
        condition.unlock()
    }

    public func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while visible.isEmpty && prefetch.isEmpty && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            let job = visible.isEmpty ? prefetch.removeFirst() : visible.removeFirst()
            running += 1
            condition.unlock()

            job.run()

            condition.lock()
            running -= 1
            if visible.isEmpty && prefetch.isEmpty && running == 0 { condition.broadcast() }
            condition.unlock()
        }
    }
}
