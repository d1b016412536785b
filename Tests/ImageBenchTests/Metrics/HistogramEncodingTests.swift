import Foundation
import Histogram
import Testing
@testable import ImageBench

@Suite("Histograms in HdrHistogram's compressed encoding")
struct HistogramEncodingTests {
    /// Display latencies in µs: a spread from 1 µs to 50 min, some repeated, with long runs of
    /// empty buckets between them (what the zero runs fold).
    static func sample() -> LatencyHistogram {
        var histogram = LatencyHistogram()
        var random = SeededRandom(seed: 3, stream: "histogram")
        for _ in 0..<5_000 { histogram.record(nanoseconds: UInt64(exp(random.unit() * 20)) * 1_000) }
        for value: UInt64 in [1, 2, 999, 1_000, 1_001, 123_456, 3_000_000_000] { histogram.record(nanoseconds: value * 1_000) }
        return histogram
    }

    static let percentiles = [0.0, 10, 50, 90, 95, 99, 99.9, 100]

    @Test("encoded and decoded, a histogram has the same count, percentiles, mean and max")
    func roundTrip() throws {
        let original = Self.sample()
        let text = HistogramEncoding.encode(original.histogram, highest: LatencyHistogram.highest)
        #expect(text.hasPrefix("HISTFAAA"), "\(text.prefix(12))")
        let decoded = try JSONDecoder().decode(LatencyHistogram.self, from: JSONEncoder().encode(original))
        #expect(decoded.count == original.count)
        for percentile in Self.percentiles {
            #expect(decoded.milliseconds(atPercentile: percentile) == original.milliseconds(atPercentile: percentile), "p\(percentile)")
        }
        #expect(decoded.meanMilliseconds == original.meanMilliseconds && decoded.maxMilliseconds == original.maxMilliseconds)
        let empty = try JSONDecoder().decode(LatencyHistogram.self, from: JSONEncoder().encode(LatencyHistogram()))
        #expect(empty.count == 0)
        // imgbench 0.2 wrote the histogram's full Codable form: it still reads.
        struct Old: Encodable { let histogram: Histogram<UInt64> }
        let old = try JSONDecoder().decode(LatencyHistogram.self, from: JSONEncoder().encode(Old(histogram: original.histogram)))
        #expect(old.count == original.count && old.milliseconds(atPercentile: 99) == original.milliseconds(atPercentile: 99))
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(LatencyHistogram.self, from: Data("{\"hdrhistogram\": \"HISTFAAAnonsense\"}".utf8))
        }
    }

    @Test("the exact minimum and maximum come back when their buckets hold other values too", arguments: [
        [22_410, 22_412, 22_415, 30_000], [22_410, 22_412, 22_415], [40_001, 40_003, 40_002], [7, 7, 9_000_001, 9_000_002]])
    func extremesInSharedBuckets(_ microseconds: [UInt64]) throws {
        var original = LatencyHistogram()
        for value in microseconds { original.record(nanoseconds: value * 1_000) }
        let decoded = try JSONDecoder().decode(LatencyHistogram.self, from: JSONEncoder().encode(original))
        #expect(decoded.milliseconds(atPercentile: 0) == Double(microseconds.min()!) / 1_000)
        // The max is its bucket's highest value, in the run as read back.
        #expect(decoded.maxMilliseconds == original.maxMilliseconds && decoded.count == microseconds.count)
        for percentile in Self.percentiles {
            #expect(decoded.milliseconds(atPercentile: percentile) == original.milliseconds(atPercentile: percentile), "p\(percentile)")
        }
        #expect(decoded.meanMilliseconds == original.meanMilliseconds)
    }

    @Test("the mean is exact, read back too; without a kept sum it is the buckets' again; a sum no values could make is refused")
    func exactMean() throws {
        var histogram = LatencyHistogram()
        // 10,001 and 10,003 µs share a bucket at three digits (10,000–10,007, its middle 10,004):
        // the buckets' mean is 10.004 ms, the exact one 10.002 ms.
        for microseconds: UInt64 in [10_001, 10_003] { histogram.record(nanoseconds: microseconds * 1_000 + 999) }
        #expect(histogram.meanMilliseconds == 10.002)
        #expect(histogram.histogram.mean / 1_000 == 10.004)
        let text = try JSONEncoder().encode(histogram)
        #expect(try JSONDecoder().decode(LatencyHistogram.self, from: text).meanMilliseconds == 10.002)

        var object = try #require(try JSONSerialization.jsonObject(with: text) as? [String: Any])
        #expect(object["sum_us"] as? Int == 20_004)
        object["sum_us"] = nil  // as files written before the sum was kept
        var unknown = try JSONDecoder().decode(LatencyHistogram.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(unknown.meanMilliseconds == 10.004)
        // Merged with a histogram whose sum is unknown, a sum is unknown either way round.
        var merged = histogram
        merged.add(unknown)
        unknown.add(histogram)
        #expect(merged.meanMilliseconds == 10.004 && unknown.meanMilliseconds == 10.004)
        var twice = histogram
        twice.add(histogram)
        #expect(twice.meanMilliseconds == 10.002 && twice.count == 4)

        for hostile in [20_001, 20_007, -1] {
            object["sum_us"] = hostile
            #expect(throws: (any Error).self, "sum_us \(hostile)") {
                try JSONDecoder().decode(LatencyHistogram.self, from: JSONSerialization.data(withJSONObject: object))
            }
        }
        object["sum_us"] = 20_006
        #expect(try JSONDecoder().decode(LatencyHistogram.self, from: JSONSerialization.data(withJSONObject: object)).meanMilliseconds == 10.003)
        // Without the exact extremes to check it against, a sum is not taken: the buckets' mean.
        object["min_us"] = nil
        object["max_us"] = nil
        #expect(try JSONDecoder().decode(LatencyHistogram.self, from: JSONSerialization.data(withJSONObject: object)).meanMilliseconds == 10.004)
    }

    @Test("Python's hdrhistogram package decodes it: the same count in every bucket, and its own percentiles from them")
    func pythonReadsIt() throws {
        let original = Self.sample()
        let text = HistogramEncoding.encode(original.histogram, highest: LatencyHistogram.highest)
        let buckets = original.histogram.recordedValues().map { "\($0.value) \($0.count)" }.joined(separator: "\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("buckets-\(UUID().uuidString).txt")
        try buckets.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try runPython("""
            import sys
            from hdrh.histogram import HdrHistogram
            h = HdrHistogram.decode(sys.argv[1])
            wrong = [line for line in open(sys.argv[2]).read().split("\\n")
                     if h.get_count_at_value(int(line.split()[0])) != int(line.split()[1])]
            print(h.get_total_count(), len(wrong), h.get_value_at_percentile(99.0))
            """, arguments: [text, file.path])
        let fields = output.split(separator: " ").compactMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(fields.count == 3, "\(output)")
        #expect(Int(fields[0]) == original.count, "total count")
        #expect(fields[1] == 0, "\(fields[1]) buckets hold another count in Python")
        // Python rounds the rank to the nearest count (we and Java round up), so p99 may sit one bucket over.
        #expect(abs(Double(fields[2]) - Double(original.histogram.valueAtPercentile(99))) <= Double(original.histogram.valueAtPercentile(99)) * 0.01)
    }

    @Test("histograms.json of a 100-row run is under 50 kB")
    func smallFile() async throws {
        let results = try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 100
            settings.network = try NetworkProfile(parsing: "loopback")
            settings.settleSeconds = 1
            return try Benchmark.run(BenchmarkPlan(settings: settings, strategies: [.threads], concurrencies: [4], repeats: 1,
                                                   warmups: 0, warmupSeconds: 0))
        }
        let json = try HistogramsJSON().render(results)
        #expect(json.utf8.count < 50_000, "\(json.utf8.count) bytes")
        let runs = try JSONDecoder().decode([HistogramsJSON.Run].self, from: Data(json.utf8))
        #expect(runs.count == 1 && runs[0].latency.count == results.results[0].latency.count)
        #expect(runs[0].distributions.placeholder.milliseconds(atPercentile: 95) == results.results[0].placeholder.milliseconds(atPercentile: 95))
    }
}
