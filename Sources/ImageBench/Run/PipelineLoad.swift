/// The pipeline's load of one image as a strategy's job: runs the load, posts the result to the
/// main loop's inbox, then writes the bytes to the disk cache (off the user's critical path, as
/// image libraries write on a background queue). It carries the transport the run's loads share,
/// so the strategies that run it never see one.
struct PipelineLoad: LoadWork {
    let pipeline: ImagePipeline
    let transport: any Transport
    let task: LoadTask
    let gauge: ConcurrencyGauge
    let inbox: DeliveryInbox

    func start(on context: any LoadContext, then done: @escaping @Sendable () -> Void) {
        pipeline.start(task, transport: transport, gauge: gauge, on: context) { step in
            // A modelled decode holds the slot until its work is done; a stage queue's does not.
            if case .next(let stage) = step, stage.modelledWork != nil {
                return pipeline.stages.submit(stage) { deliver($0); done() }
            }
            deliver(step)
            done()
        }
    }

    /// A finished load to the main loop; a load waiting for a stage queue to that queue.
    private func deliver(_ step: ImagePipeline.Step?) {
        switch step {
        case nil: return
        case .next(let stage): return pipeline.stages.submit(stage) { deliver($0) }
        case .finished(let output):
            inbox.post(output.completion)
            if let bytes = output.bytesToStore { pipeline.diskCache?.store(bytes, for: task.request.cacheKey.text) }
        }
    }
}
