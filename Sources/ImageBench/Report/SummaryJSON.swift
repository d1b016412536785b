import Foundation

/// `summary.json`: the configuration and every run's metrics, for tools.
public struct SummaryJSON: ReportWriter {
    public static let fileName = "summary.json"

    public init() {}

    public func render(_ results: BenchmarkResults) throws -> String {
        let settings = results.plan.settings
        let runs: [[String: Any]] = results.results.map { result in
            var run = Self.fields(result.summary)
            run["stages"] = Dictionary(uniqueKeysWithValues: StageHistograms.names.map { name in
                (name + "_ms", Self.percentiles(result.stages[name]))
            })
            run["display_latency_ms"] = Self.percentiles(result.latency)
            if !result.clients.isEmpty {
                run["clients"] = result.clients.map { client, summary in
                    var fields = Self.fields(summary)
                    fields["client"] = client
                    return fields
                }
            }
            if let server = result.server {
                run["server"] = ["requests": server.requests,
                                 "faults": Dictionary(uniqueKeysWithValues: ServerFaults.Kind.allCases.map { ($0.rawValue, server.faults[$0, default: 0]) })]
                    as [String: Any]
            }
            return run
        }
        let aggregate: [[String: Any]] = CellAggregate.of(results.results).map { cell in
            var entry: [String: Any] = ["strategy": cell.strategy, "concurrency": cell.concurrency, "format": cell.format, "runs": cell.runs]
            for (metric, estimate) in cell.estimates {
                entry[metric.name] = ["median": estimate.median, "ci_low": estimate.low, "ci_high": estimate.high]
            }
            return entry
        }
        let document: [String: Any] = [
            "imgbench_version": ImageBenchVersion.current,
            // What merge, report, compare and gate read back (`RecordedPlan`); "configuration" is
            // the same for people and scripts, flattened.
            "plan": try results.plan.jsonObject(),
            "started_at": ISO8601DateFormatter().string(from: results.startedAt),
            // Said at the top as well as in the plan: a virtual run's figures are the model's, and
            // a tool reading them must not take them for measurements.
            "time": (settings.time ?? .real).rawValue,
            // A virtual run's host delay (--host-delay-ms); null: none modelled, or a real run.
            "host_delay_ms": settings.hostDelayMs ?? NSNull(),
            "configuration": [
                "rows": settings.rows, "fps": settings.fps, "seed": settings.seed, "scroll": settings.scroll.rawValue,
                "network": [
                    "name": settings.network.name, "display_ms": settings.network.latencyMilliseconds,
                    "jitter_ms": settings.network.jitterMilliseconds,
                    "bandwidth_bytes_per_s": settings.network.bandwidthBytesPerSecond ?? NSNull(),
                ] as [String: Any],
                "filter": settings.filter.rawValue, "cancel": settings.cancelPolicy.rawValue,
                "coalesce": settings.coalesce, "memory_cache_bytes": settings.memoryCacheBytes,
                "disk_cache": settings.diskCacheDirectory ?? NSNull(), "disk_cache_bytes": settings.diskCacheBytes,
                "disk_read": settings.diskRead.rawValue, "prefetch": settings.prefetch,
                "decode_concurrency": settings.decodeConcurrency as Any? ?? NSNull(), "filter_concurrency": settings.filterConcurrency as Any? ?? NSNull(),
                "progressive": settings.progressive == true, "resume": settings.resume == true,
                "inject": settings.injection.description,
                "strategies": results.plan.strategies.map(\.rawValue), "concurrency": results.plan.concurrencies,
                "formats": results.plan.formats.map(\.description),
                // Policies given as lists: the values above are each one's first; the cells ran every one.
                "variations": Dictionary(results.plan.variations.map { ($0.dimension.rawValue, $0.values) }, uniquingKeysWith: { a, _ in a }),
                "repeat": results.plan.repeats, "warmup": results.plan.warmups,
                "warmup_seconds": results.plan.warmupSeconds, "transport": settings.transport.rawValue,
                "timeout_ms": settings.fetchLimits.timeoutMilliseconds, "max_bytes": settings.fetchLimits.maxBytes,
                "max_pixels": settings.decodeLimits.maxPixels, "max_decode_mb": settings.decodeLimits.maxDecodeMegabytes,
                "arguments": RunArguments(results.plan).words,
                "faults": settings.faults.description, "retries": settings.retry.retries,
                "stall_timeout_ms": settings.fetchLimits.stallMilliseconds,
                "clients": settings.clients, "decode": settings.decodes,
                "shard_clients": settings.shard.map { [$0.clients(of: settings.clients).lowerBound, $0.clients(of: settings.clients).upperBound] } ?? NSNull(),
                "source": settings.source.description,
            ] as [String: Any],
            "workload": [
                "images": results.corpusImages, "corpus_bytes": results.corpusBytes,
                "server": results.serverURL, "trace_seconds": results.traceSeconds,
            ] as [String: Any],
            "environment": results.environment.json,
            "runs": runs,
            "partial": results.partial, "stopped_by": results.stoppedBy ?? NSNull(),
            "aggregate": aggregate,
            "aggregate_method": "median over repeats; 95% percentile bootstrap interval (2000 resamples, seeded)",
            "verdict": Verdict(results).jsonObject,
            "thresholds": results.thresholdChecks.map(\.jsonObject),
            // A load test's end-of-test figures per cell (empty for an app benchmark).
            "load_summary": LoadSummary(results).jsonObject,
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A run's metrics by column name; its failed HTTP requests by status as an object
    /// (`{"404": 8250}`), not summary.csv's text.
    static func fields(_ summary: RunSummary) -> [String: Any] {
        var fields: [String: Any] = [:]
        for (name, value) in summary.fields { fields[name] = json(value) }
        fields[Metric.httpErrorsByStatus.name] = Dictionary(uniqueKeysWithValues: summary.httpErrorsByStatus.ranked.map {
            ($0.failure.description, $0.count)
        })
        return fields
    }

    static func json(_ value: RunSummary.Value) -> Any {
        switch value {
        case .text(let text): text
        case .integer(let integer): integer
        case .real(let real): real.isFinite ? real : NSNull()
        }
    }

    /// A distribution as summary.json gives it, in milliseconds.
    static func percentiles(_ histogram: LatencyHistogram) -> [String: Any] {
        [
            "count": histogram.count, "p50": histogram.milliseconds(atPercentile: 50),
            "p90": histogram.milliseconds(atPercentile: 90), "p95": histogram.milliseconds(atPercentile: 95),
            "p99": histogram.milliseconds(atPercentile: 99), "max": histogram.maxMilliseconds,
            "mean": histogram.meanMilliseconds,
        ]
    }
}

extension SummaryJSON {
    /// The workload a results directory records, read back for a merge to carry over.
    struct RecordedWorkload: Sendable {
        var images = 0
        var corpusBytes = 0
        var traceSeconds = 0.0
    }

    /// `directory`'s workload; zeros for what its summary.json does not say (or without one).
    /// The `--threshold`s a run was given, as its summary.json lists them (none where unreadable:
    /// the reports are then written without their checks, as a run without thresholds is).
    public static func thresholds(_ directory: URL) -> [Threshold] {
        let document = (try? JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(fileName)))) as? [String: Any]
        let checks = document?["thresholds"] as? [[String: Any]] ?? []
        return checks.compactMap { ($0["threshold"] as? String).flatMap { try? Threshold(parsing: $0) } }
    }

    static func workload(_ directory: URL) -> RecordedWorkload {
        let document = (try? JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(fileName)))) as? [String: Any]
        let workload = document?["workload"] as? [String: Any] ?? [:]
        return RecordedWorkload(images: workload["images"] as? Int ?? 0, corpusBytes: workload["corpus_bytes"] as? Int ?? 0,
                                traceSeconds: workload["trace_seconds"] as? Double ?? 0)
    }
}
