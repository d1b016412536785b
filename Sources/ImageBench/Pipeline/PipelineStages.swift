import Foundation

/// Where a load's decode and filter run, and how many of each ran at once.
///
/// By default (as the seeds do) there is one queue for the whole load: the strategy's slot is
/// held from the fetch through the decode and the filter. With `--decode-concurrency N` a load
/// gives its slot back as soon as its bytes are in, and its decode waits for one of N decode
/// threads (Nuke's data-loading, decoding and processing queues); with `--filter-concurrency M`
/// the filter likewise. A slow decode then no longer holds a network slot.
///
/// The gauges count every load in each stage, queued stages or not: transfers in flight, decodes
/// and filters running.
final class PipelineStages: Sendable {
    let decodeQueue: ThreadPoolStrategy?
    let filterQueue: ThreadPoolStrategy?
    let network: ConcurrencyGauge
    let decoding: ConcurrencyGauge
    let filtering: ConcurrencyGauge

    /// A virtual run's cores, where its modelled decodes take their time (nil: real decodes).
    let cpu: ModelledCPU?

    /// nil limits: that stage runs where the stage before it ran.
    init(decodeConcurrency: Int? = nil, filterConcurrency: Int? = nil, clock: any RunClock = .monotonic, cpu: ModelledCPU? = nil) {
        (network, decoding, filtering) = (ConcurrencyGauge(clock: clock), ConcurrencyGauge(clock: clock), ConcurrencyGauge(clock: clock))
        decodeQueue = decodeConcurrency.map { ThreadPoolStrategy(threads: $0, name: "decode") }
        filterQueue = filterConcurrency.map { ThreadPoolStrategy(threads: $0, name: "filter") }
        self.cpu = cpu
    }

    /// Runs `stage` on its queue, then hands where the load is after it to `deliver` (on the
    /// queue's thread). A stage whose load was cancelled meanwhile still runs, to report it.
    /// Visible rows' stages run before prefetches'. A modelled stage runs its work on the
    /// modelled cores first.
    func submit(_ stage: PendingStage, deliver: @escaping @Sendable (ImagePipeline.Step) -> Void) {
        if let work = stage.modelledWork, let cpu {
            decoding.enter()
            return cpu.run(work: work, token: stage.task.token) { [decoding] in
                decoding.leave()
                deliver(stage.run())
            }
        }
        guard let queue = stage.kind == .decode ? decodeQueue : filterQueue else { return deliver(stage.run()) }
        queue.submit(LoadJob(stage.task, work: StageWork { deliver(stage.run()) }))
    }

    /// Waits for both queues: decodes first, since a decode can hand its load to the filter queue.
    func waitUntilIdle() {
        decodeQueue?.waitUntilIdle()
        filterQueue?.waitUntilIdle()
    }

    func shutdown() {
        decodeQueue?.shutdown()
        filterQueue?.shutdown()
    }
}

/// A load between stages: the rest of its work, for the stage's queue.
struct PendingStage: Sendable {
    enum Kind: Sendable { case decode, filter }
    let kind: Kind
    let task: LoadTask
    /// A virtual run's decode and filter: one core's nanoseconds on the modelled cores, during
    /// which the load keeps its strategy's slot (as a real decode where its fetch ended does).
    var modelledWork: UInt64? = nil
    let run: @Sendable () -> ImagePipeline.Step
}

/// A stage's work as a job of a stage queue: all of it on the queue's thread.
private struct StageWork: LoadWork {
    let body: @Sendable () -> Void

    func start(on context: any LoadContext, then done: @escaping @Sendable () -> Void) {
        context.resume(heavy: true) {
            body()
            done()
        }
    }
}
