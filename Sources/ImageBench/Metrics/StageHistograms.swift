import Histogram

/// The distribution of each pipeline stage over a run's completed loads, one HdrHistogram per
/// stage, so summary.json can say where the time goes (median and tail) and merges stay exact.
public struct StageHistograms: Sendable {
    static let names = ["queue_wait", "disk_read", "ttfb", "transfer", "decode", "filter", "delivery"]

    /// In the order of `names`: recording a load is seven array stores, not seven string lookups
    /// (it runs for every load, on the main loop).
    private var byStage: [LatencyHistogram]

    public init() {
        byStage = Self.names.map { _ in LatencyHistogram() }
    }

    init(significantDigits digits: SignificantDigits) {
        byStage = Self.names.map { _ in LatencyHistogram(significantDigits: digits) }
    }

    init(histograms: [String: LatencyHistogram]) {
        byStage = Self.names.map { histograms[$0] ?? LatencyHistogram() }
    }

    /// Every stage's histogram by its name.
    var histograms: [String: LatencyHistogram] { Dictionary(uniqueKeysWithValues: zip(Self.names, byStage)) }

    /// Records a completed load. Network stages are recorded only for loads that used the
    /// network, so disk hits do not drag time-to-first-byte towards zero.
    public mutating func record(_ stages: StageTimes, fromNetwork: Bool) {
        byStage[0].record(nanoseconds: stages.queueWait)
        byStage[1].record(nanoseconds: stages.diskRead)
        if fromNetwork {
            byStage[2].record(nanoseconds: stages.timeToFirstByte)
            byStage[3].record(nanoseconds: stages.transfer)
        }
        byStage[4].record(nanoseconds: stages.decode)
        byStage[5].record(nanoseconds: stages.filter)
        byStage[6].record(nanoseconds: stages.delivery)
    }

    /// Time to first byte alone (a crowd user's own copy: the rest is the crowd's).
    mutating func recordTimeToFirstByte(nanoseconds: UInt64) {
        byStage[2].record(nanoseconds: nanoseconds)
    }

    subscript(name: String) -> LatencyHistogram {
        Self.names.firstIndex(of: name).map { byStage[$0] } ?? LatencyHistogram()
    }

    /// Another set's samples added to these (an exact merge).
    mutating func add(_ other: StageHistograms) {
        for index in byStage.indices { byStage[index].add(other.byStage[index]) }
    }
}
