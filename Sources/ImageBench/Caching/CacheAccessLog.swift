/// Every reference to a memory cache's entries in the order the cache saw them: lookups of keys
/// it had been given (a row's cellForRow, which the hit rate counts; prefetch and deferred checks,
/// which only touch), and inserts, each with the image's cost. A lookup of a key never inserted
/// cannot hit in a cache of any size and is not kept.
///
/// From it `thresholds` works out, for each counted lookup, the smallest cache that would have
/// answered it: the cost of the distinct entries referenced since that key's previous reference,
/// its own included (Mattson et al. 1970's stack distance, weighted by cost). An LRU cache of
/// that size or more still holds the entry; a smaller one has evicted it. So one run gives the
/// hit rate of every size at once.
struct CacheAccessLog {
    private struct Access {
        var key: Int32
        var counted: Bool
        var cost: Int
    }

    private var keys: [CacheKey: Int32] = [:]
    private var costs: [Int] = []
    private var accesses: [Access] = []

    mutating func lookup(_ key: CacheKey, counted: Bool) {
        guard let index = keys[key] else { return }
        accesses.append(Access(key: index, counted: counted, cost: costs[Int(index)]))
    }

    mutating func insert(_ key: CacheKey, cost: Int) {
        let index: Int32
        if let known = keys[key] {
            index = known
            costs[Int(index)] = cost
        } else {
            index = Int32(costs.count)
            keys[key] = index
            costs.append(cost)
        }
        accesses.append(Access(key: index, counted: false, cost: cost))
    }

    /// The smallest cache, in bytes, that answers each counted lookup of a key inserted before
    /// it. An entry costing more than `entryCostLimit` of the cache is never kept (MemoryCache's
    /// rule), so the size is at least cost / entryCostLimit. O(n log n): a Fenwick tree over the
    /// log holds each key's cost at its latest reference, so the cost referenced since a position
    /// is one prefix sum.
    func thresholds(entryCostLimit: Double) -> [Int] {
        var tree = PrefixSums(count: accesses.count)
        var latest = [Int](repeating: -1, count: costs.count)
        var latestCost = [Int](repeating: 0, count: costs.count)
        var thresholds: [Int] = []
        for (position, access) in accesses.enumerated() {
            let key = Int(access.key), previous = latest[key]
            if previous >= 0 {
                if access.counted {
                    let since = tree.sum(below: position) - tree.sum(below: previous + 1)
                    let fits = Int((Double(access.cost) / entryCostLimit).rounded(.up))
                    thresholds.append(max(since + access.cost, fits))
                }
                tree.add(-latestCost[key], at: previous)
            }
            tree.add(access.cost, at: position)
            (latest[key], latestCost[key]) = (position, access.cost)
        }
        return thresholds
    }
}

/// A Fenwick (binary indexed) tree: add at a position and sum a prefix, each in O(log n).
private struct PrefixSums {
    private var tree: [Int]

    init(count: Int) { tree = [Int](repeating: 0, count: count + 1) }

    mutating func add(_ value: Int, at position: Int) {
        var index = position + 1
        while index < tree.count {
            tree[index] += value
            index += index & -index
        }
    }

    /// The sum of positions 0..<end.
    func sum(below end: Int) -> Int {
        var index = end, total = 0
        while index > 0 {
            total += tree[index]
            index -= index & -index
        }
        return total
    }
}
