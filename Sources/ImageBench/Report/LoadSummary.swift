import Foundation

/// A load test's end-of-test summary, per cell, with the figures k6 prints at the end of a test
/// (and under its names, so a k6 user finds them): requests and their rate, request duration and
/// time to first byte (avg/min/med/p90/p95/p99/max), connect and TLS handshake time of new connections, connections
/// opened and reused, data received and sent with rates, failed requests and every status,
/// sessions (k6's iterations), users min/max, and `--threshold`s kept or broken by the cell.
/// A cell's repeats are one test: counts add up, rates are over their summed time, durations come
/// from their merged histograms (exact percentiles of all the requests).
struct LoadSummary: Sendable {
    /// avg/min/med/p90/p95/p99/max of one duration, in ms, over `count` samples.
    struct Durations: Sendable, Equatable {
        let count: Int
        let avg, min, med, p90, p95, p99, max: Double

        init(_ histogram: LatencyHistogram) {
            count = histogram.count
            // Percentile 0 is the exact smallest value, the max its bucket's highest: histograms.json
            // keeps both (min_us, max_us), so `imgbench report` says the same. The mean is exact,
            // but read from a file written before its sum was kept it is the buckets'
            // and could fall outside them (one request near its bucket's top printed avg below
            // min); the true mean cannot, so it is held to them.
            (min, max) = (histogram.milliseconds(atPercentile: 0), histogram.maxMilliseconds)
            avg = Swift.min(Swift.max(histogram.meanMilliseconds, min), max)
            med = histogram.milliseconds(atPercentile: 50)
            p90 = histogram.milliseconds(atPercentile: 90)
            p95 = histogram.milliseconds(atPercentile: 95)
            p99 = histogram.milliseconds(atPercentile: 99)
        }

        /// In k6's order and spelling.
        var named: [(name: String, ms: Double)] {
            [("avg", avg), ("min", min), ("med", med), ("p(90)", p90), ("p(95)", p95), ("p(99)", p99), ("max", max)]
        }
    }

    struct Cell: Sendable {
        let name: String
        let runs: Int
        let seconds: Double
        let requests: Int
        /// Failed (each attempt its own), cut by a cancel, and the rest: answered with a 2xx.
        let failed: HTTPErrorCounts
        let cancelled: Int
        var succeeded: Int { Swift.max(0, requests - failed.total - cancelled) }
        let duration: Durations
        let waiting: Durations
        let connecting: Durations
        /// The TLS handshake of each new HTTPS connection (none in clear text).
        let tlsHandshaking: Durations
        let connectionsOpened: Int
        let connectionsReused: Int
        let bytesReceived: Int
        let bytesSent: Int
        let sessions: Int
        /// Users scrolling in the least and the most busy second.
        let usersMin: Int
        let usersMax: Int
        let thresholds: [ThresholdCheck]

        func rate(_ count: Double) -> Double { seconds > 0 ? count / seconds : 0 }
        var failedRate: Double { requests > 0 ? Double(failed.total) / Double(requests) : 0 }
        /// Every status and class: `2xx ×105, 404 ×8250, cancelled ×3`.
        var statuses: [(key: String, count: Int)] {
            [("2xx", succeeded)] + failed.ranked.map { ($0.failure.description, $0.count) } + [("cancelled", cancelled)]
        }
    }

    let cells: [Cell]
    /// Seconds of the trace played before each run and not counted (`--warmup-seconds`): its
    /// requests reach the server too, which a k6 user, whose tool has none, must be told.
    let warmUpSeconds: Double

    /// Whether a run is a load test: several users, or images fetched and not decoded.
    static func applies(to settings: RunSettings) -> Bool { settings.clients > 1 || !settings.decodes }

    init(_ results: BenchmarkResults) {
        // A virtual run plays none (`Benchmark.run`).
        warmUpSeconds = results.plan.settings.isVirtual ? 0 : results.plan.warmupSeconds
        guard Self.applies(to: results.plan.settings) else {
            cells = []
            return
        }
        let thresholds = results.thresholdChecks.compactMap { try? Threshold(parsing: $0.threshold) }
        cells = RunResult.byCell(results.results).map { Self.cell($0, thresholds: thresholds) }
    }

    init(cells: [Cell], warmUpSeconds: Double = 0) { (self.cells, self.warmUpSeconds) = (cells, warmUpSeconds) }

    static func cell(_ runs: [RunResult], thresholds: [Threshold]) -> Cell {
        let summaries = runs.map(\.summary)
        func sum(_ value: (RunSummary) -> Int) -> Int { summaries.reduce(0) { $0 + value($1) } }
        var request = LatencyHistogram(), waiting = LatencyHistogram(), connect = LatencyHistogram(), tls = LatencyHistogram()
        for run in runs {
            request.add(run.distributions.request)
            waiting.add(run.distributions.stages["ttfb"])
            connect.add(run.distributions.connect)
            tls.add(run.distributions.tlsHandshake)
        }
        let users = runs.flatMap { $0.timeline.intervals.map(\.activeUsers) }.filter { $0 > 0 }
        // At summary.csv's precision (3 decimals), so `imgbench report` reads back the same rates.
        let seconds = summaries.reduce(0) { $0 + ($1.durationS * 1_000).rounded() / 1_000 }
        return Cell(name: runs[0].cell.name, runs: runs.count, seconds: seconds,
                    requests: sum(\.httpRequests), failed: ErrorTotals(summaries).httpErrors, cancelled: sum(\.httpCancelled),
                    duration: Durations(request), waiting: Durations(waiting), connecting: Durations(connect), tlsHandshaking: Durations(tls),
                    connectionsOpened: sum(\.connectionsOpened), connectionsReused: sum(\.connectionsReused),
                    bytesReceived: sum(\.wireBytesReceived), bytesSent: sum(\.wireBytesSent), sessions: sum(\.sessions),
                    usersMin: users.min() ?? 0, usersMax: users.max() ?? 0,
                    thresholds: RunThresholds.evaluate(thresholds, on: runs))
    }
}

extension LoadSummary {
    /// Decimal units, as k6 prints data: `36 kB`, `2.6 MB`.
    static func data(_ bytes: Double) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = bytes, unit = 0
        while value >= 1_000 && unit < units.count - 1 { (value, unit) = (value / 1_000, unit + 1) }
        return (unit == 0 || value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)) + " " + units[unit]
    }

    /// `33.51ms`, `1.2s`, `512µs`: k6's way with durations.
    static func duration(_ ms: Double) -> String {
        if ms >= 1_000 { return String(format: "%.2fs", ms / 1_000) }
        if ms >= 1 { return String(format: "%.2fms", ms) }
        return String(format: "%.0fµs", ms * 1_000)
    }

    static func count(_ value: Int) -> String { value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US"))) }

    static func perSecond(_ value: Double) -> String { String(format: value >= 100 ? "%.0f/s" : "%.1f/s", value) }

    static func durations(_ value: Durations) -> String {
        value.count == 0 ? "none" : value.named.map { "\($0.name)=\(duration($0.ms))" }.joined(separator: " ")
    }
}
