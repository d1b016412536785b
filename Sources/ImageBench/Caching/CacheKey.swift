/// What the memory cache and request merging key on: an image's cache name, with its hash worked
/// out once. A String key is hashed whole at every lookup (SipHash over some 50 bytes); a
/// simulated request looks up, merges, stores and forgets its image's key five times, which came
/// to about 4,000 instructions a request, a tenth of the harness's own share of a load run.
struct CacheKey: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringInterpolation {
    let text: String
    private let hash: Int

    init(_ text: String) {
        self.text = text
        hash = text.hashValue
    }

    init(stringLiteral value: String) { self.init(value) }

    static func == (a: CacheKey, b: CacheKey) -> Bool { a.hash == b.hash && a.text == b.text }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    var description: String { text }
}
