import NIOConcurrencyHelpers
import Prometheus

/// The live metrics of one matrix cell: its series, made once when the cell starts so that a
/// report touches only counters (atomics) and histograms (a short lock each), never the
/// registry's name table. A failure's status is the exception: its series is looked up when it
/// happens, since which statuses a server sends is not known in advance.
final class LiveCellMetrics: LiveObserver {
    private let registry: PrometheusCollectorRegistry
    /// The cell's labels: strategy, limit, format and the varied policies.
    private let labels: [(String, String)]
    private let succeeded: Counter, cancelled: Counter, bytes: Counter
    private let duration: ValueHistogram, timeToFirstByte: ValueHistogram
    private let activeUsers: Gauge
    /// The registry's lock around histograms (`LiveMetrics.histograms`).
    private let histograms: NIOLock

    init(registry: PrometheusCollectorRegistry, labels: [(String, String)], histograms: NIOLock) {
        self.registry = registry
        self.histograms = histograms
        self.labels = labels
        succeeded = registry.makeCounter(descriptor: LiveMetricNames.requests, labels: labels + [("status", LiveMetricNames.succeeded)])
        cancelled = registry.makeCounter(descriptor: LiveMetricNames.requests, labels: labels + [("status", LiveMetricNames.cancelled)])
        bytes = registry.makeCounter(descriptor: LiveMetricNames.bytes, labels: labels)
        duration = registry.makeValueHistogram(descriptor: LiveMetricNames.duration, labels: labels, buckets: LiveMetricNames.buckets)
        timeToFirstByte = registry.makeValueHistogram(descriptor: LiveMetricNames.timeToFirstByte, labels: labels,
                                                      buckets: LiveMetricNames.buckets)
        activeUsers = registry.makeGauge(descriptor: LiveMetricNames.activeUsers, labels: labels)
    }

    /// As `RunTally.account` counts them: every attempt of a network load is an HTTP request
    /// (`http_requests`), each failed one by its status or class (`http_errors_by_status`), a
    /// last one cut by a cancel as `cancelled` (`http_cancelled`), the rest succeeded (`2xx`:
    /// the transports take any 2xx as success and keep no finer status). So the statuses sum
    /// to `http_requests` exactly.
    func account(_ completion: LoadCompletion) {
        if case .failed(let failure) = completion.outcome {
            registry.makeCounter(descriptor: LiveMetricNames.errors, labels: labels + [("class", failure.errorClass.rawValue)]).increment()
        }
        guard completion.source == .network else { return }
        bytes.increment(by: Int64(completion.bytesReceived))
        for failure in completion.httpFailures {
            registry.makeCounter(descriptor: LiveMetricNames.requests, labels: labels + [("status", failure.description)]).increment()
        }
        if completion.httpCancelled { cancelled.increment() }
        let others = completion.attempts - completion.httpFailures.count - (completion.httpCancelled ? 1 : 0)
        if others > 0 { succeeded.increment(by: Int64(others)) }
        // One observation per network load, as the stages split its fetch: time to first byte,
        // then the whole fetch (its retries and their backoff included, where there were any).
        let stages = completion.stages
        histograms.withLock {
            timeToFirstByte.record(Double(stages.timeToFirstByte) / 1e9)
            duration.record(Double(stages.timeToFirstByte + stages.transfer) / 1e9)
        }
    }

    func userBegan() { activeUsers.increment() }
    func userEnded() { activeUsers.decrement() }
}
