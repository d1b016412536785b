/// Where decoded images are kept for instant display.
public protocol ImageCaching: Sendable {
    func image(for key: CacheKey) -> DecodedImage?
    func insert(_ image: DecodedImage, for key: CacheKey)
}

/// A thread-safe LRU cache limited by total cost (decoded bytes), like NSCache with a
/// `totalCostLimit` or Nuke's `ImageCache`. Inserting past the limit evicts the least recently
/// used entries; an entry costing more than `entryCostLimit` of the total is not kept at all, so
/// one huge image cannot flush every thumbnail (Nuke's rule, 10%).
public final class MemoryCache: ImageCaching {
    /// 64 MB by default: about 290 cell-sized (240×240 RGBA) thumbnails, some 30 screens of rows,
    /// in line with what feed apps budget for decoded images on a phone.
    public static let defaultCostLimit = 64_000_000
    public static let defaultEntryCostLimit = 0.1

    public let costLimit: Int
    public let entryCostLimit: Double
    private let state: Locked<LRUList>

    public init(costLimit: Int = MemoryCache.defaultCostLimit, entryCostLimit: Double = MemoryCache.defaultEntryCostLimit) {
        self.costLimit = costLimit
        self.entryCostLimit = entryCostLimit
        state = Locked(LRUList())
    }

    public func image(for key: CacheKey) -> DecodedImage? {
        state.withLockedValue { list in
            list.touch(key)
        }
    }

    public func insert(_ image: DecodedImage, for key: CacheKey) {
        guard Double(image.cost) <= Double(costLimit) * entryCostLimit else { return }
        state.withLockedValue { list in
            list.insert(image, for: key)
            while list.totalCost > costLimit { list.evictOldest() }
        }
    }

    public var totalCost: Int { state.withLockedValue { $0.totalCost } }
    public var count: Int { state.withLockedValue { $0.count } }
    public var evictions: Int { state.withLockedValue { $0.evictions } }
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
