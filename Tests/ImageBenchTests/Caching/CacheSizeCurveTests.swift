import Foundation
import Testing
@testable import ImageBench

@Suite("Cache-size curve (Mattson's stack algorithm)")
struct CacheSizeCurveTests {
    func image(cost: Int) -> DecodedImage {
        DecodedImage(size: PixelSize(width: cost / 4, height: 1), pixels: [UInt8](repeating: 0, count: cost))
    }

    /// A run's way with its cache: look up, and on a miss load and insert.
    func play(_ keys: [Int], on cache: MemoryCache, cost: (Int) -> Int) -> Int {
        var hits = 0
        for key in keys {
            if cache.image(for: "k\(key)", counted: true) != nil { hits += 1 } else { cache.insert(image(cost: cost(key)), for: "k\(key)") }
        }
        return hits
    }

    @Test("with equal costs, one pass predicts the hits of an LRU cache of every size exactly")
    func exactForEqualCosts() {
        var random = SeededRandom(seed: 5, stream: "curve")
        // Mostly nearby keys, now and then a far one: reuse at every distance.
        var keys: [Int] = [], position = 0
        for _ in 0..<3_000 {
            position = max(0, position + Int(random.unit() * 7) - 3)
            keys.append(random.unit() < 0.1 ? Int(random.unit() * 400) : position % 400)
        }
        let recorded = MemoryCache(costLimit: 1 << 40, entryCostLimit: 1, logsAccesses: true)
        let unboundedHits = play(keys, on: recorded, cost: { _ in 100 })
        let thresholds = recorded.hitThresholds()
        #expect(thresholds.count == unboundedHits)
        var checked = 0
        for entries in [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 400] {
            let real = play(keys, on: MemoryCache(costLimit: entries * 100, entryCostLimit: 1), cost: { _ in 100 })
            let predicted = thresholds.count { $0 <= entries * 100 }
            #expect(predicted == real, "\(entries) entries")
            if real > 0 && real < unboundedHits { checked += 1 }
        }
        #expect(checked >= 8)  // the sizes tried lie along the curve, not at its ends
    }

    @Test("an image above the entry cost limit needs a cache of cost / limit; lookups before the first insert hit at no size")
    func entryLimitAndColdLookups() {
        let cache = MemoryCache(costLimit: 1_000, entryCostLimit: 0.1, logsAccesses: true)
        #expect(cache.image(for: "a", counted: true) == nil)   // never inserted: no threshold
        cache.insert(image(cost: 400), for: "a")               // refused here (400 > 100), logged
        cache.insert(image(cost: 40), for: "b")
        #expect(cache.image(for: "a", counted: true) == nil)
        _ = cache.image(for: "b", counted: false)              // touches b, not counted
        #expect(cache.image(for: "b", counted: true) != nil)
        // a: 400 + b's 40 since its insert = 440, but kept only from 4,000; b: its own 40, from 400.
        #expect(cache.hitThresholds() == [4_000, 400])
        #expect(MemoryCache(costLimit: 1_000).hitThresholds() == [])
    }

    @Test("the curve's hit rate, best rate and the smallest size within a point")
    func curve() {
        var histogram = LatencyHistogram()
        // 100 requests: 60 answered by 2 MB, 20 more by 10 MB, 5 more by 30 MB; 15 at no size.
        CacheSizeCurve.record(Array(repeating: 2_000_000, count: 60) + Array(repeating: 10_000_000, count: 20)
                              + Array(repeating: 30_000_000, count: 5), into: &histogram)
        let curve = CacheSizeCurve(thresholds: histogram, requests: 100)
        #expect(curve.hitRate(atBytes: 1_000_000) == 0)
        #expect(curve.hitRate(atBytes: 2_000_000) == 0.6)
        #expect(curve.hitRate(atBytes: 12_000_000) == 0.8)
        #expect(curve.hitRate(atBytes: 64_000_000) == 0.85)
        #expect(curve.bestHitRate == 0.85)
        #expect(curve.smallestMegabytes() == 30)
        #expect(curve.smallestMegabytes(within: 0.05) == 10)
        let points = curve.points(upTo: 40_000_000)
        #expect(points.first!.bytes == 0 && points.first!.hitRate == 0 && points.last!.bytes == 40_000_000 && points.count == 201)
        #expect(CacheSizeCurve(thresholds: LatencyHistogram(), requests: 10).smallestMegabytes() == 0)
    }
}

@Suite("Cache-size curve against real runs", .serialized)
struct CacheSizeCurveRunTests {
    @Test("the curve of one run predicts the memory hit rate of real runs at three smaller caches within 2 points")
    func predictsRealRuns() async throws {
        let (predicted, measured, best) = try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 200
            settings.scroll = .revisit
            settings.cancelPolicy = .none
            settings.settleSeconds = 1
            // The first 25 s of the trace: up and down over the same rows, creeping forward. About
            // 200 requests: a request is half a point, so 2 points allow for a few that timing
            // turns (a row merged into a load still under way instead of hitting its image).
            return try Fixtures.withServedWorkload(settings, seconds: 25) { workload, _ in
                func run(megabytes: Int) -> RunResult {
                    var sized = settings
                    sized.memoryCacheBytes = megabytes * 1_000_000
                    return ScrollRun(workload: workload, settings: sized, cell: RunCell(strategy: .threads, concurrency: 4, repetition: 1)).run()
                }
                let reference = run(megabytes: 64)
                let curve = CacheSizeCurve([reference])
                var predicted: [Int: Double] = [:], measured: [Int: Double] = [:]
                for megabytes in [3, 4, 6] {
                    predicted[megabytes] = curve.hitRate(atBytes: megabytes * 1_000_000)
                    measured[megabytes] = run(megabytes: megabytes).summary.memoryHitRate
                }
                return (predicted, measured, curve.bestHitRate)
            }
        }
        for megabytes in [3, 4, 6] {
            let (p, m) = (predicted[megabytes]!, measured[megabytes]!)
            #expect(abs(p - m) <= 0.02, "\(megabytes) MB: predicted \(p), measured \(m)")
            #expect(m > 0.05 && m < best - 0.02, "\(megabytes) MB lies on the curve's slope: \(m) of \(best)")
        }
    }
}
