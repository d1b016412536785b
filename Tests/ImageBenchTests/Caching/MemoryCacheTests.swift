import Testing
@testable import ImageBench

@Suite("Memory cache")
struct MemoryCacheTests {
    func image(cost: Int) -> DecodedImage {
        DecodedImage(size: PixelSize(width: cost / 4, height: 1), pixels: [UInt8](repeating: 0, count: cost))
    }

    @Test("evicts the least recently used entries by cost")
    func evictsByCost() {
        let cache = MemoryCache(costLimit: 1000, entryCostLimit: 1)
        cache.insert(image(cost: 400), for: "a")
        cache.insert(image(cost: 400), for: "b")
        #expect(cache.image(for: "a") != nil)  // a is now more recent than b
        cache.insert(image(cost: 400), for: "c")  // 1200 > 1000: evict b
        #expect(cache.image(for: "b") == nil)
        #expect(cache.image(for: "a") != nil)
        #expect(cache.image(for: "c") != nil)
        #expect(cache.totalCost == 800)
        #expect(cache.evictions == 1)
        cache.insert(image(cost: 1000), for: "d")  // evicts both
        #expect(cache.count == 1)
        #expect(cache.totalCost == 1000)
    }

    @Test("an entry above the entry cost limit is not cached")
    func entryLimit() {
        let cache = MemoryCache(costLimit: 1000, entryCostLimit: 0.1)
        cache.insert(image(cost: 104), for: "big")
        cache.insert(image(cost: 100), for: "small")
        #expect(cache.image(for: "big") == nil)
        #expect(cache.image(for: "small") != nil)
    }

    @Test("replacing an entry updates its cost")
    func replace() {
        let cache = MemoryCache(costLimit: 1000, entryCostLimit: 1)
        cache.insert(image(cost: 400), for: "a")
        cache.insert(image(cost: 200), for: "a")
        #expect(cache.totalCost == 200)
        #expect(cache.count == 1)
    }

    @Test("slots are reused after eviction without corrupting the order")
    func churn() {
        let cache = MemoryCache(costLimit: 40, entryCostLimit: 1)
        for index in 0..<100 { cache.insert(image(cost: 8), for: "k\(index)") }
        #expect(cache.count == 5)
        for index in 95..<100 { #expect(cache.image(for: "k\(index)") != nil) }
        #expect(cache.image(for: "k94") == nil)
    }
}
