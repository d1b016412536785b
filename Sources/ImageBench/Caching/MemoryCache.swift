/// Where decoded images are kept for instant display.
protocol ImageCaching: Sendable {
    func image(for key: CacheKey) -> DecodedImage?
    func insert(_ image: DecodedImage, for key: CacheKey)
}

/// A thread-safe LRU cache limited by total cost (decoded bytes), like NSCache with a
/// `totalCostLimit` or Nuke's `ImageCache`. Inserting past the limit evicts the least recently
/// used entries; an entry costing more than `entryCostLimit` of the total is not kept at all, so
/// one huge image cannot flush every thumbnail (Nuke's rule, 10%).
final class MemoryCache: ImageCaching {
    /// 64 MB by default: about 290 cell-sized (240×240 RGBA) thumbnails, some 30 screens of rows,
    /// in line with what feed apps budget for decoded images on a phone.
    static let defaultCostLimit = 64_000_000
    static let defaultEntryCostLimit = 0.1

    let costLimit: Int
    let entryCostLimit: Double
    /// The entries, and (`logsAccesses`) every reference to them in order, under one lock so the
    /// log's order is the list's.
    private let state: Locked<(list: LRUList, log: CacheAccessLog?)>

    /// `logsAccesses`: keep the references `hitThresholds` needs (a run's cache does; 24 bytes
    /// per lookup or insert).
    init(costLimit: Int = MemoryCache.defaultCostLimit, entryCostLimit: Double = MemoryCache.defaultEntryCostLimit,
                logsAccesses: Bool = false) {
        self.costLimit = costLimit
        self.entryCostLimit = entryCostLimit
        state = Locked((LRUList(), logsAccesses ? CacheAccessLog() : nil))
    }

    func image(for key: CacheKey) -> DecodedImage? {
        image(for: key, counted: false)
    }

    /// `counted`: the lookup is a row's request, one the hit rate counts (the others are checks
    /// before a prefetch or a deferred load, which still make the entry recent).
    func image(for key: CacheKey, counted: Bool) -> DecodedImage? {
        state.withLockedValue { state in
            state.log?.lookup(key, counted: counted)
            return state.list.touch(key)
        }
    }

    func insert(_ image: DecodedImage, for key: CacheKey) {
        let kept = Double(image.cost) <= Double(costLimit) * entryCostLimit
        state.withLockedValue { state in
            // Logged even when too costly to keep here: a larger cache would keep it.
            state.log?.insert(key, cost: image.cost)
            guard kept else { return }
            state.list.insert(image, for: key)
            while state.list.totalCost > costLimit { state.list.evictOldest() }
        }
    }

    /// For every counted lookup of an image inserted before it, the smallest cache (bytes) that
    /// would have answered it (`CacheAccessLog`); empty without `logsAccesses`.
    func hitThresholds() -> [Int] {
        state.withLockedValue { $0.log?.thresholds(entryCostLimit: entryCostLimit) ?? [] }
    }

    var totalCost: Int { state.withLockedValue { $0.list.totalCost } }
    var count: Int { state.withLockedValue { $0.list.count } }
    var evictions: Int { state.withLockedValue { $0.list.evictions } }
}

/// A doubly linked list over array slots, with a dictionary from key to slot: O(1) lookup, touch,
/// insert and eviction without allocating a node object per entry.
private struct LRUList {
    struct Node {
        var key: CacheKey
        var image: DecodedImage?
        var previous: Int
        var next: Int
    }

    private var nodes: [Node] = []
    private var slots: [CacheKey: Int] = [:]
    private var free: [Int] = []
    private var head = -1  // most recently used
    private var tail = -1  // least recently used
    private(set) var totalCost = 0
    private(set) var evictions = 0

    var count: Int { slots.count }

    mutating func touch(_ key: CacheKey) -> DecodedImage? {
        guard let slot = slots[key] else { return nil }
        unlink(slot)
        pushFront(slot)
        return nodes[slot].image
    }

    mutating func insert(_ image: DecodedImage, for key: CacheKey) {
        if let slot = slots[key] {
            totalCost += image.cost - (nodes[slot].image?.cost ?? 0)
            nodes[slot].image = image
            unlink(slot)
            pushFront(slot)
            return
        }
        let node = Node(key: key, image: image, previous: -1, next: -1)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[key] = slot
        totalCost += image.cost
        pushFront(slot)
    }

    mutating func evictOldest() {
        guard tail >= 0 else { return }
        let slot = tail
        unlink(slot)
        totalCost -= nodes[slot].image?.cost ?? 0
        slots[nodes[slot].key] = nil
        nodes[slot].image = nil
        free.append(slot)
        evictions += 1
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous, next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }

    private mutating func pushFront(_ slot: Int) {
        nodes[slot].next = head
        nodes[slot].previous = -1
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
