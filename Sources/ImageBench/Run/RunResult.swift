/// How far a run has got, for progress lines.
public struct RunProgress: Sendable {
    public let frame: Int
    public let traceFrames: Int
    public let rowsVisited: Int
    public let requests: Int
    public let displayed: Int
    public let inFlight: Int
}

/// Everything one run measured.
public struct RunResult: Sendable {
    public let cell: RunCell
    public let summary: RunSummary
    public let requests: [RequestRecord]
    public let latency: LatencyHistogram
    public let stages: StageHistograms
    /// Placeholder time of every request.
    public var placeholder = LatencyHistogram()
    /// Ready latency of the displayed requests.
    public var ready = LatencyHistogram()
    /// What the embedded server saw during this run: the ground truth for faults it injected.
    public var server: ServerCounts?
    /// With `--clients`: each simulated user's own summary (this result combines them).
    public var clients: [(client: Int, summary: RunSummary)] = []
}
