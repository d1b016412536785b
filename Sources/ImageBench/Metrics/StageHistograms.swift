/// The distribution of each pipeline stage over a run's completed loads, one HdrHistogram per
/// stage, so summary.json can say where the time goes (median and tail) and merges stay exact.
public struct StageHistograms: Sendable {
    public static let names = ["queue_wait", "disk_read", "ttfb", "transfer", "decode", "filter", "delivery"]

    public private(set) var histograms: [String: LatencyHistogram] =
        Dictionary(uniqueKeysWithValues: StageHistograms.names.map { ($0, LatencyHistogram()) })

    public init() {}

    /// Records a completed load. Network stages are recorded only for loads that used the
    /// network, so disk hits do not drag time-to-first-byte towards zero.
    public mutating func record(_ stages: StageTimes, fromNetwork: Bool) {
        histograms["queue_wait"]!.record(nanoseconds: stages.queueWait)
        histograms["disk_read"]!.record(nanoseconds: stages.diskRead)
        if fromNetwork {
            histograms["ttfb"]!.record(nanoseconds: stages.timeToFirstByte)
            histograms["transfer"]!.record(nanoseconds: stages.transfer)
        }
        histograms["decode"]!.record(nanoseconds: stages.decode)
        histograms["filter"]!.record(nanoseconds: stages.filter)
        histograms["delivery"]!.record(nanoseconds: stages.delivery)
    }

    public subscript(name: String) -> LatencyHistogram { histograms[name] ?? LatencyHistogram() }

    /// Another set's samples added to these (an exact merge).
    public mutating func add(_ other: StageHistograms) {
        for name in Self.names { histograms[name]!.add(other[name]) }
    }

    public init(histograms: [String: LatencyHistogram]) {
        for name in Self.names { self.histograms[name] = histograms[name] ?? LatencyHistogram() }
    }
}
