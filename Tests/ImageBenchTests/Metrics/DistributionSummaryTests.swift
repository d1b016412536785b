import Testing
@testable import ImageBench

@Suite("Distribution families")
struct DistributionSummaryTests {
    /// Every family, in catalog order.
    static let families: [DistributionFamily] = [
        Metric.display, Metric.placeholder, Metric.ready, Metric.ttfb, Metric.request, Metric.decodeMsPerMp,
        Metric.firstImage, Metric.settle, Metric.restWait,
    ]

    /// The columns the families' entries had when each was declared by hand: generating them must
    /// not rename, reorder or drop one.
    static let handWrittenColumns = [
        "display_p50_ms", "display_p90_ms", "display_p95_ms", "display_p99_ms", "display_max_ms",
        "placeholder_p50_ms", "placeholder_p95_ms", "placeholder_p99_ms", "placeholder_mean_ms", "placeholder_n",
        "ready_p50_ms", "ready_p95_ms", "ready_p99_ms",
        "ttfb_p50_ms", "ttfb_p90_ms", "ttfb_p95_ms", "ttfb_p99_ms", "ttfb_max_ms",
        "request_p50_ms", "request_p90_ms", "request_p95_ms", "request_p99_ms", "request_max_ms",
        "decode_ms_per_mp_p50", "decode_ms_per_mp_p95", "first_image_p50_ms", "first_image_p95_ms",
        "settle_p50_ms", "settle_p95_ms", "settle_mean_ms", "rest_wait_mean_ms",
    ]

    @Test("each family's entries are its declaration's: names, order, kinds, former names, contiguous in the catalog")
    func entriesAreGenerated() throws {
        #expect(Self.families.flatMap(\.metrics).map(\.name) == Self.handWrittenColumns)
        let catalog = Metric.catalog.map(\.name)
        for family in Self.families {
            let names = family.metrics.map(\.name)
            let start = try #require(catalog.firstIndex(of: names[0]))
            #expect(Array(catalog[start..<start + names.count]) == names)
        }
        let p95 = Metric.display[.p95]
        #expect(p95.unit == "ms" && p95.better == .lowerIsBetter && p95.combination == .recomputed && !p95.since03)
        #expect(Self.families.flatMap(\.metrics).compactMap(\.formerName)
                == ["latency_p50_ms", "latency_p90_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms"])
        #expect(Metric.named("latency_max_ms")?.name == "display_max_ms")
        let count = Metric.placeholder[.n]
        #expect(count.unit == "requests" && count.better == nil && count.combination == .sum)
        #expect(Metric.ttfb.metrics.allSatisfy(\.since03) && !Metric.ready.metrics.contains(where: \.since03))
    }

    @Test("an entry reads and writes its family's statistic")
    func entriesReachTheirStatistic() {
        var summary = RunSummary()
        #expect(Metric.ready[.p95].read("12.5", into: &summary) && Metric.placeholder[.n].read("7", into: &summary))
        #expect(Metric.decodeMsPerMp[.p50].read("3", into: &summary))
        #expect(summary.ready == DistributionSummary(p95: 12.5) && summary.placeholder == DistributionSummary(n: 7))
        #expect(summary.decodeMsPerMp.p50 == 3)
        #expect(Metric.ready[.p95].value(of: summary) == .real(12.5) && Metric.placeholder[.n].value(of: summary) == .integer(7))
    }

    @Test("a family fills only the statistics it reports, from its histogram")
    func fillsItsStatistics() {
        var histogram = LatencyHistogram()
        for milliseconds in 1...100 { histogram.record(nanoseconds: UInt64(milliseconds) * 1_000_000) }
        var summary = RunSummary()
        Metric.ready.fill(&summary, from: histogram)
        Metric.placeholder.fill(&summary, from: histogram)
        #expect(summary.ready == DistributionSummary(p50: histogram.milliseconds(atPercentile: 50), p95: histogram.milliseconds(atPercentile: 95),
                                                     p99: histogram.milliseconds(atPercentile: 99)))
        #expect(summary.placeholder.mean == histogram.meanMilliseconds && summary.placeholder.n == 100)
        #expect(summary.placeholder.p90 == 0 && summary.placeholder.max == 0)
    }
}
