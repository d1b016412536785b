/// The pipeline's load of one image as a strategy's job: runs the load, posts the result to the
/// main loop's inbox, then writes the bytes to the disk cache (off the user's critical path, as
/// image libraries write on a background queue). It carries the transport the run's loads share,
/// so the strategies that run it never see one.
struct PipelineLoad: LoadWork {
    let pipeline: ImagePipeline
    let transport: any Transport
    let request: LoadRequest
    let id: Int
    let token: LoadToken
    let submittedAt: UInt64
    let gauge: ConcurrencyGauge
    let inbox: DeliveryInbox
    /// Its stages' place in their queues (`PipelineStages`): visible rows' before prefetches'.
    let priority: LoadPriority
    /// `--progressive`: previews of a progressive JPEG while it arrives.
    let progressive: Bool
    /// `--resume`: the user's kept partial bodies.
    let partials: PartialDownloads?

    /// Set before the fetch: the transfer watches its body for complete scans, and resumes or
    /// keeps a partial body.
    private func prepareTransfer() {
        if let partials { token.partialDownloads = partials }
        guard progressive else { return }
        let inbox = inbox
        token.bodyObserver = ProgressivePreviewer(loadID: id, pipeline: pipeline, offload: transport.kind == .multi) { inbox.post($0) }
    }

    func run() {
        prepareTransfer()
        deliver(pipeline.load(request, id: id, token: token, submittedAt: submittedAt, transport: transport, gauge: gauge))
    }

    func runAsync() async {
        prepareTransfer()
        deliver(await pipeline.loadAsync(request, id: id, token: token, submittedAt: submittedAt,
                                         transport: transport, gauge: gauge))
    }

    func start(then done: @escaping @Sendable () -> Void) {
        prepareTransfer()
        pipeline.loadEvented(request, id: id, token: token, submittedAt: submittedAt, transport: transport, gauge: gauge) {
            deliver($0)
            done()
        }
    }

    /// A finished load to the main loop; a load waiting for a stage queue to that queue.
    private func deliver(_ step: ImagePipeline.Step?) {
        switch step {
        case nil: return
        case .next(let stage): return pipeline.stages.submit(stage, priority: priority) { deliver($0) }
        case .finished: break
        }
        guard let output = step?.output else { return }
        inbox.post(output.completion)
        if let bytes = output.bytesToStore { pipeline.diskCache?.store(bytes, for: request.cacheKey.text) }
    }
}
