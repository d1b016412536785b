import Foundation

/// `imgbench merge`: the results directories of shards (`--shard I/N`, each a slice of the same
/// configuration's clients) joined into one, exactly: every client's summary is combined as if
/// all had run in one process, and latency percentiles come from the shards' merged histograms.
public enum ShardMerge {
    public struct MergeError: Error, CustomStringConvertible {
        public let description: String
    }

    public struct Merged: Sendable {
        /// The command sets its threshold checks before writing.
        public var results: BenchmarkResults
        /// requests.csv of every shard, one header.
        public let requestsCSV: String

        /// The merged directory's reports, and its requests.csv from the shards' own text: every
        /// column as they measured it.
        public func write(to directory: URL) throws {
            try Reports.write(results, to: directory)
            try requestsCSV.write(to: directory.appendingPathComponent(RequestsCSV.fileName), atomically: true, encoding: .utf8)
        }
    }

    /// The shards of `plan` (their common configuration, `--shard` left out) as one benchmark.
    /// `requireAllClients` false reads a shard on its own (`imgbench report`).
    public static func merge(_ directories: [String], plan: BenchmarkPlan, requireAllClients: Bool = true) throws(MergeError) -> Merged {
        let varied = plan.variations.map(\.dimension)
        var shards: [Shard] = []
        var seenClients: [Int: String] = [:]
        for directory in directories {
            let shard = try Shard(directory, varied: varied)
            for row in shard.clients {
                if let other = seenClients[row.client], other != directory {
                    throw MergeError(description: "client \(row.client) is in both \(other) and \(directory): the same shard twice?")
                }
                seenClients[row.client] = directory
            }
            shards.append(shard)
        }
        let expected = plan.settings.clients
        let missing = Set(0..<expected).subtracting(seenClients.keys)
        guard missing.isEmpty || !requireAllClients else {
            throw MergeError(description: "clients \(missing.sorted().map(String.init).joined(separator: ", ")) of \(expected) are in no directory: a shard is missing")
        }
        let workload = SummaryJSON.workload(URL(fileURLWithPath: directories[0]))
        let benchmark = BenchmarkResults(plan: plan, results: try results(shards, plan: plan), corpusImages: workload.images,
                                         corpusBytes: workload.corpusBytes, serverURL: "\(directories.count) shards",
                                         traceSeconds: workload.traceSeconds, startedAt: Date(), environment: RunEnvironment.capture())
        return Merged(results: benchmark, requestsCSV: RequestsCSV.joined(shards.map(\.requestsText)))
    }

    /// A result per run the shards' users made, in the order first seen: every user's summary
    /// combined, latency percentiles from the merged histograms, requests and timelines joined.
    static func results(_ shards: [Shard], plan: BenchmarkPlan) throws(MergeError) -> [RunResult] {
        var order: [RunKey] = []
        var clients: [RunKey: [(client: Int, summary: RunSummary)]] = [:]
        var histograms: [RunKey: RunDistributions] = [:]
        var timelines: [RunKey: Timeline] = [:]
        var records: [RunKey: [RequestRecord]] = [:]
        for shard in shards {
            for row in shard.clients {
                let key = RunKey(cell: row.cell, repetition: row.repetition)
                if clients[key] == nil { order.append(key) }
                clients[key, default: []].append((row.client, row.summary))
            }
            for (key, run) in shard.histograms {
                histograms[key, default: RunDistributions()].add(run.distributions)
                // Each shard's seconds count from its own start: shards started together add up.
                timelines[key, default: Timeline()].add(Timeline(intervals: run.seconds ?? []))
            }
            for row in shard.requests { records[RunKey(cell: row.cell, repetition: row.repetition), default: []].append(row.record) }
        }
        var results: [RunResult] = []
        for key in order {
            guard let strategy = key.cell.strategy.kind else { throw MergeError(description: "unknown strategy \(key.cell.strategy.name)") }
            let users = clients[key]!.sorted { $0.client < $1.client }
            let distributions = histograms[key] ?? RunDistributions()
            var summary = RunSummary.combining(users.map(\.summary))
            distributions.fill(&summary)
            // A --source cell whose format imgbench did not choose has none (the mix's name is not shown).
            let format = (try? CorpusFormat(parsing: summary.format)) ?? .mixed
            var result = RunResult(cell: RunCell(strategy: strategy, concurrency: summary.concurrency, repetition: summary.repetition,
                                                 format: format, variant: key.cell.variant, trace: plan.trace(ofRepetition: summary.repetition)),
                                   summary: summary, requests: records[key] ?? [], distributions: distributions)
            result.clients = users.count > 1 ? users : []
            result.timeline = timelines[key] ?? Timeline()
            results.append(result)
        }
        return results
    }
}
