/// Several simulated users' runs of one cell as one: the aggregate row of summary.csv with
/// `--clients`, and how `imgbench merge` joins shards. Counts and rates add up, ratios are
/// recomputed from the sums, latency percentiles come from the merged histograms (exact, not an
/// average of percentiles).
extension RunSummary {
    public static func combining(_ parts: [RunSummary]) -> RunSummary {
        precondition(!parts.isEmpty, "nothing to combine")
        var total = parts[0]
        for part in parts.dropFirst() {
            for metric in Metric.catalog { metric.accumulate(part, into: &total) }
        }
        let byRequests = parts.map { Double(max(1, $0.requests)) }, even = parts.map { _ in 1.0 }
        for metric in Metric.catalog {
            switch metric.combination {
            case .mean: metric.average(parts, weights: even, into: &total)
            case .requestWeightedMean: metric.average(parts, weights: byRequests, into: &total)
            default: break
            }
        }
        return total
    }

    /// The placeholder-time and ready-latency fields from (merged) histograms.
    mutating func takeDistributions(placeholder: LatencyHistogram, ready: LatencyHistogram) {
        placeholderP50Ms = placeholder.milliseconds(atPercentile: 50)
        placeholderP95Ms = placeholder.milliseconds(atPercentile: 95)
        placeholderP99Ms = placeholder.milliseconds(atPercentile: 99)
        placeholderMeanMs = placeholder.meanMilliseconds
        placeholderCount = placeholder.count
        readyP50Ms = ready.milliseconds(atPercentile: 50)
        readyP95Ms = ready.milliseconds(atPercentile: 95)
        readyP99Ms = ready.milliseconds(atPercentile: 99)
    }

    /// The latency fields from a (merged) histogram.
    mutating func takeLatency(from histogram: LatencyHistogram) {
        latencyP50Ms = histogram.milliseconds(atPercentile: 50)
        latencyP90Ms = histogram.milliseconds(atPercentile: 90)
        latencyP95Ms = histogram.milliseconds(atPercentile: 95)
        latencyP99Ms = histogram.milliseconds(atPercentile: 99)
        latencyMaxMs = histogram.maxMilliseconds
    }
}

extension RunResult {
    /// The clients of one cell as one result: summaries combined, histograms merged, requests
    /// concatenated (each keeps its client index).
    public static func combining(_ clients: [RunResult]) -> RunResult {
        var latency = LatencyHistogram(), stages = StageHistograms(), placeholder = LatencyHistogram(), ready = LatencyHistogram()
        for client in clients {
            latency.add(client.latency)
            stages.add(client.stages)
            placeholder.add(client.placeholder)
            ready.add(client.ready)
        }
        var summary = RunSummary.combining(clients.map(\.summary))
        summary.takeLatency(from: latency)
        summary.takeDistributions(placeholder: placeholder, ready: ready)
        var result = RunResult(cell: clients[0].cell, summary: summary, requests: clients.flatMap(\.requests),
                               latency: latency, stages: stages)
        (result.placeholder, result.ready) = (placeholder, ready)
        return result
    }
}

extension RunSummary {
    public struct RowError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A summary read back from a row of summary.csv or clients.csv (by column name), for
    /// `imgbench merge`. Reals come back at the 3 decimals the CSV keeps; counts exactly.
    public init(row: [String: String]) throws(RowError) {
        self.init()
        for metric in Metric.catalog {
            if case .derived = metric.field { continue }
            guard let text = row[metric.name] else { throw RowError(description: "no \(metric.name) column") }
            guard metric.read(text, into: &self) else {
                throw RowError(description: "\(metric.name) is not a number: '\(text)'")
            }
        }
    }
}
