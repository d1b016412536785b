/// Swift structured concurrency: one long-lived task owns a task group and keeps at most `limit`
/// child tasks running, taking loads from an `AsyncStream` in submission order. With the multi
/// transport a child suspends while its bytes arrive; with the blocking transport it holds one of
/// the cooperative pool's threads (one per core) for the whole download, which caps real
/// concurrency at the core count: the report shows it.
final class AsyncStrategy: LoadScheduling {
    private let jobs: AsyncStream<LoadJob>.Continuation
    private let outstanding = OutstandingWork()

    init(limit: Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: LoadJob.self)
        jobs = continuation
        Task.detached(priority: .high) { [outstanding] in
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await job in stream {
                    if running >= limit {
                        await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask {
                        // A load cancelled while queued returns at once: its token refuses to begin.
                        await job.runAsync()
                        outstanding.done()
                    }
                }
            }
        }
    }

    func submit(_ job: LoadJob) {
        outstanding.add()
        jobs.yield(job)
    }

    func cancel(_ job: LoadJob) {}

    func waitUntilIdle() {
        outstanding.waitUntilNone()
    }

    func shutdown() {
        jobs.finish()
    }
}
