import NIOConcurrencyHelpers
import Prometheus

/// `--metrics-address`: the run's live metrics, in Prometheus's registry, which the metrics
/// server renders on each scrape. Every measured run of a cell reports to that cell's series
/// (`cell(_:)`); warm-ups report nowhere, so the counts are summary.csv's.
public final class LiveMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// Held around every histogram's record and around each rendering. swift-prometheus 2.4.1
    /// copies a histogram's state under its lock and then reads the copy's buckets without it,
    /// while `record` may be writing them in place (ThreadSanitizer saw it, users against a
    /// scrape); one lock of ours orders the two.
    private let histograms = NIOLock()

    public init() {}

    /// The series of `cell`: its repetitions and budget rounds add to the same counters.
    func cell(_ cell: RunCell) -> LiveCellMetrics {
        LiveCellMetrics(registry: registry, labels: Self.labels(of: cell), histograms: histograms)
    }

    /// What tells a cell apart: strategy and limit, the format, and each varied policy by its
    /// summary.csv column (`cancel`, `memory_cache_mb`).
    static func labels(of cell: RunCell) -> [(String, String)] {
        [("strategy", cell.strategy.rawValue), ("limit", String(cell.concurrency)), ("format", cell.format.description)]
            + cell.variant.values.keys.sorted().map { ($0.rawValue, cell.variant.values[$0]!) }
    }

    /// Every series now, in the text exposition format (version 0.0.4).
    public func exposition() -> [UInt8] { histograms.withLock { registry.emitToBuffer() } }
}
