/// Several simulated users' runs of one cell as one: the aggregate row of summary.csv with
/// `--clients`, and how `imgbench merge` joins shards. Counts and rates add up, ratios are
/// recomputed from the sums, latency percentiles come from the merged histograms (exact, not an
/// average of percentiles).
extension RunSummary {
    static func combining(_ parts: [RunSummary]) -> RunSummary {
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
}

extension RunResult {
    /// The clients of one cell as one result: summaries combined, histograms merged (or, from a
    /// crowd, the `distributions` it recorded for all of them), requests concatenated (each keeps
    /// its client index).
    static func combining(_ clients: [RunResult], distributions recorded: RunDistributions? = nil) -> RunResult {
        var distributions = recorded ?? RunDistributions()
        if recorded == nil { for client in clients { distributions.add(client.distributions) } } else {
            // A crowd records its distributions as it goes, but each user's transport counts its own wire.
            for client in clients {
                distributions.connect.add(client.distributions.connect)
                distributions.tlsHandshake.add(client.distributions.tlsHandshake)
            }
        }
        var summary = RunSummary.combining(clients.map(\.summary))
        distributions.fill(&summary)
        var combined = RunResult(cell: clients[0].cell, summary: summary, requests: clients.flatMap(\.requests), distributions: distributions)
        for client in clients { combined.timeline.add(client.timeline) }
        return combined
    }
}

extension RunSummary {
    struct RowError: Error, CustomStringConvertible {
        let description: String
    }

    /// A summary read back from a row of summary.csv or clients.csv (by column name), for
    /// `imgbench merge`. Reals come back at the 3 decimals the CSV keeps; counts exactly.
    init(row: [String: String]) throws(RowError) {
        self.init()
        for metric in Metric.catalog {
            if case .derived = metric.field { continue }
            let text = row[metric.name] ?? metric.formerName.flatMap { row[$0] }
            if metric.since03 && text == nil { continue }
            guard let text else { throw RowError(description: "no \(metric.name) column") }
            guard metric.read(text, into: &self) else {
                throw RowError(description: "\(metric.name) is not a number: '\(text)'")
            }
        }
        if row[Metric.imagesLoaded.name] == nil { imagesLoaded = imagesDecoded }
    }
}
