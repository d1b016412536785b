/// The machine's cores in a virtual-time run: where modelled decodes (and their filters) take their
/// time. Processor sharing: every job runs from the moment it arrives, and `n` jobs on `c` cores
/// each progress at min(1, c / n) of a core, as a fair scheduler shares the cores among runnable
/// threads. A real run's decodes go to a Dispatch queue that runs as many at once as the machine
/// has cores; this keeps that width and leaves out the main loop's and the network thread's share
/// of the same cores (small beside a decode in `imgbench calibrate`'s figures, and in the host
/// delay already).
///
/// A job's work is a single core's time (`imgbench calibrate` measures each image alone). When
/// jobs arrive or leave, every job's remaining work is advanced at the old rate, and the next
/// completion is scheduled anew. Ties end in the order the jobs arrived.
///
/// Every call comes from the run loop's thread (the clock's events run on it), hence
/// `@unchecked Sendable` over plain state.
final class ModelledCPU: @unchecked Sendable {
    private struct Job {
        let order: UInt64
        /// Nanoseconds of one core's time still to do, scaled by `scale` to keep fractions exact.
        var remaining: UInt64
        let done: @Sendable () -> Void
    }

    let cores: Int
    private let clock: VirtualClock
    private var jobs: [Job] = []
    private var arrivals: UInt64 = 0
    /// When remaining work was last brought up to date.
    private var updatedAt: UInt64
    /// The completion event scheduled for the job due first.
    private var next: UInt64?
    /// Work is kept in 1/scale nanoseconds (720,720: every n up to 16 divides it), so sharing at a
    /// rate of cores / n loses no time to rounding for the runs' usual counts, and at most a
    /// nanosecond a job otherwise.
    private static let scale: UInt64 = 720_720

    init(cores: Int, clock: VirtualClock) {
        self.cores = max(1, cores)
        self.clock = clock
        updatedAt = clock.now()
    }

    /// Jobs under way.
    var running: Int { jobs.count }

    /// Runs a job of `work` nanoseconds of one core's time; `done` runs when it has had them, or
    /// when `token` is cancelled first (the job leaves the cores then, as a real decode stops at
    /// its next row), at the clock's next wait rather than inside the cancel.
    func run(work: UInt64, token: LoadToken? = nil, done: @escaping @Sendable () -> Void) {
        advance()
        arrivals += 1
        let order = arrivals
        let (scaled, overflow) = work.multipliedReportingOverflow(by: Self.scale)
        jobs.append(Job(order: order, remaining: overflow ? .max : scaled, done: done))
        reschedule()
        token?.onCancel { [self] in stop(order) }
    }

    private func stop(_ order: UInt64) {
        advance()
        guard let index = jobs.firstIndex(where: { $0.order == order }) else { return }
        let job = jobs.remove(at: index)
        reschedule()
        clock.schedule(at: clock.now()) { job.done() }
    }

    /// Each job's share of a core, in scaled units per nanosecond.
    private var rate: UInt64 { Self.scale * UInt64(min(cores, jobs.count)) / UInt64(max(1, jobs.count)) }

    /// Brings every job's remaining work up to now at the rate that held since the last update.
    private func advance() {
        let now = clock.now()
        defer { updatedAt = now }
        guard !jobs.isEmpty, now > updatedAt else { return }
        let (done, overflow) = (now - updatedAt).multipliedReportingOverflow(by: rate)
        for index in jobs.indices { jobs[index].remaining -= min(jobs[index].remaining, overflow ? .max : done) }
    }

    /// Schedules the completion of the job with the least work left (the first to arrive of equals).
    private func reschedule() {
        if let next { clock.cancel(next) }
        next = nil
        guard let first = jobs.min(by: { ($0.remaining, $0.order) < ($1.remaining, $1.order) }) else { return }
        let rate = rate
        let wait = first.remaining / rate + (first.remaining % rate == 0 ? 0 : 1)
        let order = first.order
        next = clock.schedule(at: clock.now() &+ wait) { [self] in complete(order) }
    }

    private func complete(_ order: UInt64) {
        next = nil
        advance()
        guard let index = jobs.firstIndex(where: { $0.order == order }) else { return reschedule() }
        let job = jobs.remove(at: index)
        reschedule()
        job.done()
    }
}
