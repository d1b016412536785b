/// SplitMix64: a small, fast generator whose sequence depends only on its seed, so traces, corpora
/// and per-URL delays are identical for every strategy and every run with the same `--seed`.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// A generator for one purpose ("trace", "corpus", ...) so that adding draws to one purpose does
    /// not shift the sequence another purpose sees.
    init(seed: UInt64, stream: String) {
        self.init(seed: seed ^ StableHash.fnv1a(stream))
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededRandom.mix(state)
    }

    /// A uniform Double in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// The SplitMix64 finaliser: a good 64-bit hash of one value.
    @inlinable static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Hashes that do not change between processes (Swift's `Hasher` is randomly seeded per process).
enum StableHash {
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    /// A value in [0, 1) fixed by the seed and a key: the jitter of one URL, say.
    static func unit(seed: UInt64, key: String) -> Double {
        Double(SeededRandom.mix(seed ^ fnv1a(key)) >> 11) * 0x1.0p-53
    }
}
