import Foundation

/// A fixed pool of `Thread`s pulling loads from one shared queue, visible rows first: the way to
/// get exactly N concurrent blocking downloads on any platform, because the threads exist from the
/// start (Dispatch and OperationQueue grow their pools on demand). Cancelling a queued load
/// removes it from the queue.
///
/// Workers and `waitUntilIdle` wait on conditions of their own under one mutex: a submit wakes
/// exactly one worker, and only the pool going idle wakes the waiter. (With one condition for
/// both, a job's end woke every idle worker to find nothing, about 6.5 context switches per load
/// with 100 users; and a submit's single signal could go to the idle waiter instead of a worker
/// and be lost.)
///
/// `@unchecked Sendable`: `visible`, `prefetch`, `running` and `stopping` are only touched while
/// holding `mutex`.
final class ThreadPoolStrategy: LoadScheduling, @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let workArrived = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let becameIdle = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var visible: [LoadJob] = []
    private var prefetch: [LoadJob] = []
    private var running = 0
    private var stopping = false

    /// `name`: the threads' names are imgbench.<name>.<index> (a stage queue's: decode, filter).
    init(threads: Int, name: String = "worker") {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(workArrived, nil)
        pthread_cond_init(becameIdle, nil)
        for index in 0..<threads {
            let thread = Thread { [self] in work() }
            thread.name = "imgbench.\(name).\(index)"
            thread.start()
        }
    }

    // Each worker's closure holds the pool, so this runs only after every worker has returned.
    deinit {
        pthread_cond_destroy(workArrived)
        pthread_cond_destroy(becameIdle)
        pthread_mutex_destroy(mutex)
        workArrived.deallocate()
        becameIdle.deallocate()
        mutex.deallocate()
    }

    func submit(_ job: LoadJob) {
        pthread_mutex_lock(mutex)
        if job.priority == .visible { visible.append(job) } else { prefetch.append(job) }
        pthread_cond_signal(workArrived)
        pthread_mutex_unlock(mutex)
    }

    func cancel(_ job: LoadJob) {
        pthread_mutex_lock(mutex)
        visible.removeAll { $0 === job }
        prefetch.removeAll { $0 === job }
        if isIdle { pthread_cond_broadcast(becameIdle) }
        pthread_mutex_unlock(mutex)
    }

    func waitUntilIdle() {
        pthread_mutex_lock(mutex)
        while !isIdle { pthread_cond_wait(becameIdle, mutex) }
        pthread_mutex_unlock(mutex)
    }

    func shutdown() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(workArrived)
        pthread_mutex_unlock(mutex)
    }

    /// Holding `mutex`.
    private var isIdle: Bool { visible.isEmpty && prefetch.isEmpty && running == 0 }

    private func work() {
        while true {
            pthread_mutex_lock(mutex)
            while visible.isEmpty && prefetch.isEmpty && !stopping { pthread_cond_wait(workArrived, mutex) }
            if stopping {
                pthread_mutex_unlock(mutex)
                return
            }
            let job = visible.isEmpty ? prefetch.removeFirst() : visible.removeFirst()
            running += 1
            pthread_mutex_unlock(mutex)

            job.run()

            pthread_mutex_lock(mutex)
            running -= 1
            if isIdle { pthread_cond_broadcast(becameIdle) }
            pthread_mutex_unlock(mutex)
        }
    }
}
