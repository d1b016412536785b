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
        let expected = plan.settings.clients
        var clientRows: [String: [(client: Int, summary: RunSummary)]] = [:]
        var histograms: [String: RunDistributions] = [:]
        var timelines: [String: Timeline] = [:]
        var seenClients: [Int: String] = [:]
        var cellOrder: [String] = []
        var requests = ""
        var records: [String: [RequestRecord]] = [:]
        for directory in directories {
            let url = URL(fileURLWithPath: directory)
            let table: [[String]]
            let runs: [HistogramsJSON.Run]
            do {
                table = CSVTable.parse(try String(contentsOf: url.appendingPathComponent(ClientsCSV.fileName), encoding: .utf8))
                runs = try HistogramsJSON.read(url)
            } catch {
                throw MergeError(description: "\(directory): not an imgbench results directory with clients.csv and histograms.json")
            }
            guard let header = table.first else { throw MergeError(description: "\(directory)/clients.csv is empty") }
            var clientsHere = Set<Int>()
            for (line, fields) in table.dropFirst().enumerated() where fields.count == header.count {
                // A header that names a column twice (a hostile or hand-edited file) keeps the first.
                let row = Dictionary(zip(header, fields), uniquingKeysWith: { first, _ in first })
                let summary: RunSummary
                do {
                    summary = try RunSummary(row: row)
                } catch {
                    throw MergeError(description: "\(directory)/clients.csv:\(line + 2): \(error.description)")
                }
                guard let client = Int(row["client"] ?? "") else { throw MergeError(description: "\(directory)/clients.csv:\(line + 2): no client") }
                if let other = seenClients[client], other != directory {
                    throw MergeError(description: "client \(client) is in both \(other) and \(directory): the same shard twice?")
                }
                seenClients[client] = directory
                clientsHere.insert(client)
                let key = Self.key(summary.strategy, summary.concurrency, summary.repetition, summary.format) + Self.variant(summary, plan).suffix
                if clientRows[key] == nil { cellOrder.append(key) }
                clientRows[key, default: []].append((client, summary))
            }
            for run in runs {
                let key = Self.key(run.strategy, run.concurrency, run.repetition, run.format ?? "") + Self.variant(run.policyValues, plan).suffix
                histograms[key, default: RunDistributions()].add(run.distributions)
                // Each shard's seconds count from its own start: shards started together add up.
                timelines[key, default: Timeline()].add(Timeline(intervals: run.seconds ?? []))
            }
            let text = (try? String(contentsOf: url.appendingPathComponent(RequestsCSV.fileName), encoding: .utf8)) ?? ""
            requests += requests.isEmpty ? text : String(text.drop { $0 != "\n" }.dropFirst())
            let rows = CSVTable.parse(text)
            if let header = rows.first {
                for fields in rows.dropFirst() where fields.count == header.count {
                    // A header that names a column twice (a hostile or hand-edited file) keeps the first.
                let row = Dictionary(zip(header, fields), uniquingKeysWith: { first, _ in first })
                    guard let record = RequestRecord(row: row), let strategy = row["strategy"],
                          let concurrency = row["concurrency"].flatMap(Int.init), let repetition = row["repeat"].flatMap(Int.init) else { continue }
                    let policies = Dictionary(uniqueKeysWithValues: PolicyDimension.allCases.map { ($0.rawValue, row[$0.requestsColumn] ?? "") })
                    let variant = Self.variant(policies, plan).suffix
                    records[Self.key(strategy, concurrency, repetition, row["format"] ?? "") + variant, default: []].append(record)
                }
            }
        }
        let missing = Set(0..<expected).subtracting(seenClients.keys)
        guard missing.isEmpty || !requireAllClients else {
            throw MergeError(description: "clients \(missing.sorted().map(String.init).joined(separator: ", ")) of \(expected) are in no directory: a shard is missing")
        }
        var results: [RunResult] = []
        for key in cellOrder {
            let clients = clientRows[key]!.sorted { $0.client < $1.client }
            guard let strategy = StrategyKind(rawValue: clients[0].summary.strategy) else {
                throw MergeError(description: "unknown strategy \(clients[0].summary.strategy)")
            }
            let distributions = histograms[key] ?? RunDistributions()
            var summary = RunSummary.combining(clients.map(\.summary))
            distributions.fill(&summary)
            // A --source cell whose format imgbench did not choose has none (the mix's name is not shown).
            let format = (try? CorpusFormat(parsing: summary.format)) ?? .mixed
            var result = RunResult(cell: RunCell(strategy: strategy, concurrency: summary.concurrency, repetition: summary.repetition,
                                                 format: format, variant: Self.variant(summary, plan),
                                                 trace: plan.trace(ofRepetition: summary.repetition)),
                                   summary: summary, requests: records[key] ?? [], distributions: distributions)
            result.clients = clients.count > 1 ? clients : []
            result.timeline = timelines[key] ?? Timeline()
            results.append(result)
        }
        let first = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directories[0])
            .appendingPathComponent(SummaryJSON.fileName)))) as? [String: Any]
        let workload = first?["workload"] as? [String: Any] ?? [:]
        let benchmark = BenchmarkResults(plan: plan, results: results, corpusImages: workload["images"] as? Int ?? 0,
                                         corpusBytes: workload["corpus_bytes"] as? Int ?? 0,
                                         serverURL: "\(directories.count) shards", traceSeconds: workload["trace_seconds"] as? Double ?? 0,
                                         startedAt: Date(), environment: RunEnvironment.capture())
        return Merged(results: benchmark, requestsCSV: requests)
    }

    /// A run's values of the policies its plan varies, from its summary's columns.
    static func variant(_ summary: RunSummary, _ plan: BenchmarkPlan) -> PolicyVariant {
        PolicyVariant(plan.variations.reduce(into: [:]) { $0[$1.dimension] = $1.dimension.value(of: summary) })
    }

    /// The same from a file's values by summary.csv column (histograms.json, requests.csv).
    static func variant(_ values: [String: String], _ plan: BenchmarkPlan) -> PolicyVariant {
        PolicyVariant(plan.variations.reduce(into: [:]) { $0[$1.dimension] = values[$1.dimension.rawValue] ?? "" })
    }

    static func key(_ strategy: String, _ concurrency: Int, _ repetition: Int, _ format: String) -> String {
        "\(CellName.of(strategy: strategy, concurrency: concurrency, format: format)) #\(repetition)"
    }
}
