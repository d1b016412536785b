import Foundation

/// The classic iOS answer: an `OperationQueue` with `maxConcurrentOperationCount`, one `Operation`
/// per row load, and a dictionary of pending operations keyed by load so a row that scrolls away
/// can `cancel()` its operation. A cancelled operation that has not started is finished by the
/// queue without running its work.
final class OperationQueueStrategy: LoadScheduling {
    private let queue: OperationQueue
    private let pending = Locked<[Int: Operation]>([:])

    init(maxConcurrentOperationCount: Int) {
        queue = OperationQueue()
        queue.name = "imgbench.operation-queue"
        queue.maxConcurrentOperationCount = maxConcurrentOperationCount
        queue.qualityOfService = .userInitiated
    }

    func submit(_ job: LoadJob) {
        let operation = ImageLoadOperation(job: job)
        operation.queuePriority = job.priority == .visible ? .high : .low
        operation.completionBlock = { [weak self] in
            self?.pending.withLockedValue { _ = $0.removeValue(forKey: job.id) }
        }
        pending.withLockedValue { $0[job.id] = operation }
        queue.addOperation(operation)
    }

    func cancel(_ job: LoadJob) {
        pending.withLockedValue { $0[job.id] }?.cancel()
    }

    func waitUntilIdle() {
        queue.waitUntilAllOperationsAreFinished()
    }
}

/// One row's load as an Operation subclass, as the tutorials write it: check `isCancelled`
/// before doing anything (the job's token is checked again between stages).
///
/// `@unchecked Sendable`: Operation's own state is thread-safe, and the only stored properties
/// are immutable references to Sendable objects.
final class ImageLoadOperation: Operation, @unchecked Sendable {
    private let job: LoadJob

    init(job: LoadJob) {
        self.job = job
    }

    override func main() {
        guard !isCancelled else { return }
        job.run()
    }
}
