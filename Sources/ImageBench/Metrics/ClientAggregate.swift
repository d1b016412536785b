/// Several simulated users' runs of one cell as one: the aggregate row of summary.csv with
/// `--clients`, and how `imgbench merge` joins shards. Counts and rates add up, ratios are
/// recomputed from the sums, latency percentiles come from the merged histograms (exact, not an
/// average of percentiles).
extension RunSummary {
    public static func combining(_ parts: [RunSummary]) -> RunSummary {
        precondition(!parts.isEmpty, "nothing to combine")
        var total = parts[0]
        for part in parts.dropFirst() {
            total.rowsVisited += part.rowsVisited
            total.requests += part.requests
            total.memoryHits += part.memoryHits
            total.diskHits += part.diskHits
            total.networkFetches += part.networkFetches
            total.merged += part.merged
            total.errors += part.errors
            total.errorsByClass.merge(part.errorsByClass, uniquingKeysWith: +)
            total.retries += part.retries
            total.httpRequests += part.httpRequests
            total.decodeWarnings += part.decodeWarnings
            total.displayed += part.displayed
            total.neverDisplayed += part.neverDisplayed
            total.cancelledQueued += part.cancelledQueued
            total.cancelledInflight += part.cancelledInflight
            total.bytesDownloaded += part.bytesDownloaded
            total.bytesSaved += part.bytesSaved
            total.bytesWasted += part.bytesWasted
            total.decodeMsSaved += part.decodeMsSaved
            total.wastedCompletions += part.wastedCompletions
            total.prefetchLoads += part.prefetchLoads
            total.prefetchCancelled += part.prefetchCancelled
            total.memoryEvictions += part.memoryEvictions
            total.diskWrites += part.diskWrites
            total.diskDiscarded += part.diskDiscarded
            total.droppedFrames += part.droppedFrames
            // Loads running at once across all users, and work done per second by all of them.
            total.achievedConcurrencyMean += part.achievedConcurrencyMean
            total.achievedConcurrencyPeak += part.achievedConcurrencyPeak
            total.imagesDecoded += part.imagesDecoded
            total.imagesPerS += part.imagesPerS
            total.bytesPerS += part.bytesPerS
            total.durationS = max(total.durationS, part.durationS)
            total.partial = total.partial || part.partial
        }
        let weights = parts.map { Double(max(1, $0.requests)) }
        func weighted(_ value: (RunSummary) -> Double) -> Double {
            zip(parts, weights).reduce(0) { $0 + value($1.0) * $1.1 } / weights.reduce(0, +)
        }
        // Each user has a main loop of its own: its share of the screen and its hitches.
        total.placeholderRatio = weighted(\.placeholderRatio)
        total.hitchMsPerS = parts.map(\.hitchMsPerS).reduce(0, +) / Double(parts.count)
        total.mainBusyMsPerS = parts.map(\.mainBusyMsPerS).reduce(0, +) / Double(parts.count)
        // CPU and memory are measured per process: users in one process share them; processes
        // (shards) add their CPU and keep the largest peak.
        total.cpuUserS = parts.map(\.cpuUserS).max()!
        total.cpuSysS = parts.map(\.cpuSysS).max()!
        total.peakRssMb = parts.map(\.peakRssMb).max()!
        return total
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
        var latency = LatencyHistogram(), stages = StageHistograms()
        for client in clients {
            latency.add(client.latency)
            stages.add(client.stages)
        }
        var summary = RunSummary.combining(clients.map(\.summary))
        summary.takeLatency(from: latency)
        return RunResult(cell: clients[0].cell, summary: summary, requests: clients.flatMap(\.requests),
                         latency: latency, stages: stages)
    }
}

extension RunSummary {
    public struct RowError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A summary read back from a row of summary.csv or clients.csv (by column name), for
    /// `imgbench merge`. Reals come back at the 3 decimals the CSV keeps; counts exactly.
    public init(row: [String: String]) throws(RowError) {
        func text(_ name: String) throws(RowError) -> String {
            guard let value = row[name] else { throw RowError(description: "no \(name) column") }
            return value
        }
        func int(_ name: String) throws(RowError) -> Int {
            guard let value = Int(try text(name)) else { throw RowError(description: "\(name) is not a whole number") }
            return value
        }
        func real(_ name: String) throws(RowError) -> Double {
            let value = try text(name)
            guard let number = value.isEmpty ? 0 : Double(value) else { throw RowError(description: "\(name) is not a number") }
            return number
        }
        self.init(strategy: try text("strategy"), concurrency: try int("concurrency"), repetition: try int("repeat"),
                  network: try text("network"), transport: try text("transport"), rows: try int("rows"),
                  rowsVisited: try int("rows_visited"), requests: try int("requests"), memoryHits: try int("memory_hits"),
                  diskHits: try int("disk_hits"), networkFetches: try int("network_fetches"), merged: try int("merged"),
                  errors: try int("errors"), displayed: try int("displayed"), neverDisplayed: try int("never_displayed"),
                  cancelledQueued: try int("cancelled_queued"), cancelledInflight: try int("cancelled_inflight"),
                  bytesDownloaded: try int("bytes_downloaded"), bytesSaved: try int("bytes_saved"),
                  bytesWasted: try int("bytes_wasted"), decodeMsSaved: try real("decode_ms_saved"),
                  wastedCompletions: try int("wasted_completions"), prefetchLoads: try int("prefetch_loads"),
                  prefetchCancelled: try int("prefetch_cancelled"), memoryEvictions: try int("memory_evictions"),
                  diskWrites: try int("disk_writes"), diskDiscarded: try int("disk_discarded"),
                  latencyP50Ms: try real("latency_p50_ms"), latencyP90Ms: try real("latency_p90_ms"),
                  latencyP95Ms: try real("latency_p95_ms"), latencyP99Ms: try real("latency_p99_ms"),
                  latencyMaxMs: try real("latency_max_ms"), placeholderRatio: try real("placeholder_ratio"),
                  hitchMsPerS: try real("hitch_ms_per_s"), mainBusyMsPerS: try real("main_busy_ms_per_s"),
                  droppedFrames: try int("dropped_frames"), achievedConcurrencyMean: try real("achieved_concurrency_mean"),
                  achievedConcurrencyPeak: try int("achieved_concurrency_peak"), imagesDecoded: try int("images_decoded"),
                  imagesPerS: try real("images_per_s"), bytesPerS: try real("bytes_per_s"), cpuUserS: try real("cpu_user_s"),
                  cpuSysS: try real("cpu_sys_s"), peakRssMb: try real("peak_rss_mb"), durationS: try real("duration_s"))
        for errorClass in ErrorClass.allCases { errorsByClass[errorClass] = try int("errors_" + errorClass.rawValue) }
        retries = try int("retries")
        httpRequests = try int("http_requests")
        decodeWarnings = try int("decode_warnings")
        partial = try int("partial") == 1
    }
}
