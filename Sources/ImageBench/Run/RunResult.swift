/// How far a run has got, for progress lines.
public struct RunProgress: Sendable {
    let frame: Int
    let traceFrames: Int
    let rowsVisited: Int
    let requests: Int
    let displayed: Int
    let inFlight: Int
    /// A crowd's progress: the users scrolling now (the counts are all of theirs).
    var users: Int?
}

/// Everything one run measured.
public struct RunResult: Sendable {
    var cell: RunCell
    var summary: RunSummary
    let requests: [RequestRecord]
    let distributions: RunDistributions
    /// What the embedded server saw during this run: the ground truth for faults it injected.
    var server: ServerCounts?
    /// With `--clients`: each simulated user's own summary (this result combines them).
    var clients: [(client: Int, summary: RunSummary)] = []
    /// The run second by second (timeseries.csv).
    var timeline = Timeline()
    /// Where its seconds count from (monotonic ns: the first vsync of the cell); 0 for results
    /// read back from files, whose requests keep their offsets from it.
    var origin: UInt64 = 0

    init(cell: RunCell, summary: RunSummary, requests: [RequestRecord], distributions: RunDistributions) {
        self.cell = cell
        self.summary = summary
        self.requests = requests
        self.distributions = distributions
    }

    /// A result with only display latency and stages recorded.
    init(cell: RunCell, summary: RunSummary, requests: [RequestRecord], latency: LatencyHistogram, stages: StageHistograms) {
        var distributions = RunDistributions()
        (distributions.latency, distributions.stages) = (latency, stages)
        self.init(cell: cell, summary: summary, requests: requests, distributions: distributions)
    }

    /// Results grouped by strategy × concurrency (× format) cell (their repeats), in the order
    /// cells first ran.
    static func byCell(_ results: [RunResult]) -> [[RunResult]] {
        var order: [String] = [], groups: [String: [RunResult]] = [:]
        for result in results {
            let key = result.cell.name
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(result)
        }
        return order.map { groups[$0]! }
    }

    var latency: LatencyHistogram { distributions.latency }
    var stages: StageHistograms { distributions.stages }
    var placeholder: LatencyHistogram { distributions.placeholder }
    var ready: LatencyHistogram { distributions.ready }
}
