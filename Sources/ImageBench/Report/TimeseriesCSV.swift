/// `timeseries.csv`: every run second by second from its start (`Timeline`), as load tools plot
/// it: users still scrolling, rows' requests made, HTTP requests and bytes completed, failed
/// loads, and within the second the time to first byte and the whole request of the network loads
/// completed, and the display latency of the images shown (two significant digits, with their n).
/// A run's `http_requests` column adds up to its http_requests in summary.csv.
struct TimeseriesCSV: ReportWriter {
    static let fileName = "timeseries.csv"

    static let header = [
        "strategy", "concurrency", "repeat", "second", "active_users", "requests", "http_requests", "bytes", "errors",
        "ttfb_n", "ttfb_p50_ms", "ttfb_p90_ms", "ttfb_p99_ms", "ttfb_max_ms",
        "request_p50_ms", "request_p90_ms", "request_p99_ms", "request_max_ms",
        "display_n", "display_p50_ms", "display_p90_ms", "display_p99_ms", "display_max_ms", "format",
    ]

    init() {}

    /// p50, p90, p99 and max in ms; empty cells for a second without a sample.
    private static func percentiles(_ histogram: LatencyHistogram) -> [String] {
        guard histogram.count > 0 else { return ["", "", "", ""] }
        return [50.0, 90, 99].map { RunSummary.Value.real(histogram.milliseconds(atPercentile: $0)).formatted }
            + [RunSummary.Value.real(histogram.maxMilliseconds).formatted]
    }

    func render(_ results: BenchmarkResults) throws -> String {
        var table = CSVTable(header: Self.header)
        for result in results.results {
            let cell = [result.cell.strategy.rawValue, String(result.cell.concurrency), String(result.cell.repetition)]
            for (second, interval) in result.timeline.intervals.enumerated() {
                table.append(cell + [String(second), String(interval.activeUsers), String(interval.requests),
                                     String(interval.httpRequests), String(interval.bytes), String(interval.errors),
                                     String(interval.ttfb.count)] + Self.percentiles(interval.ttfb) + Self.percentiles(interval.request)
                             + [String(interval.display.count)] + Self.percentiles(interval.display) + [result.summary.format])
            }
        }
        return table.rendered
    }
}
