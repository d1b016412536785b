/// `timeseries.csv`: every run second by second from its start (`Timeline`), as load tools plot
/// it: users still scrolling, rows' requests made, HTTP requests and bytes completed, failed
/// loads, and time to first byte within the second (two significant digits, with its n). A run's
/// `http_requests` column adds up to its http_requests in summary.csv.
public struct TimeseriesCSV: ReportWriter {
    public let fileName = "timeseries.csv"

    public static let header = [
        "strategy", "concurrency", "repeat", "second", "active_users", "requests", "http_requests", "bytes", "errors",
        "ttfb_n", "ttfb_p50_ms", "ttfb_p90_ms", "ttfb_p99_ms", "ttfb_max_ms",
    ]

    public init() {}

    public func render(_ results: BenchmarkResults) throws -> String {
        var table = CSVTable(header: Self.header)
        for result in results.results {
            let cell = [result.cell.strategy.rawValue, String(result.cell.concurrency), String(result.cell.repetition)]
            for (second, interval) in result.timeline.intervals.enumerated() {
                let ttfb = interval.ttfb
                let percentiles = ttfb.count == 0 ? ["", "", "", ""]
                    : [50.0, 90, 99].map { RunSummary.Value.real(ttfb.milliseconds(atPercentile: $0)).formatted }
                        + [RunSummary.Value.real(ttfb.maxMilliseconds).formatted]
                table.append(cell + [String(second), String(interval.activeUsers), String(interval.requests),
                                     String(interval.httpRequests), String(interval.bytes), String(interval.errors),
                                     String(ttfb.count)] + percentiles)
            }
        }
        return table.rendered
    }
}
