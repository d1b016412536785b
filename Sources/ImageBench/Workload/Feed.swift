import Foundation

/// How a feed's rows pick their images (`--feed`).
enum FeedOrder: String, Sendable, Codable, CaseIterable {
    /// Row i shows image i, wrapping when rows outnumber images: a manifest's own order, the user's feed.
    case sequential
    /// Skewed popularity (Zipf), so images recur down the feed: the embedded corpus and `{id}` templates.
    case zipf
}

/// What row `i` shows: an image of the corpus, chosen with skewed popularity so avatars and shared
/// photos recur down the feed (which is what makes memory caches and request merging matter).
struct Feed: Sendable {
    /// The image each row shows, indexed by row.
    let imageForRow: [Int]
    let imageCount: Int

    var rowCount: Int { imageForRow.count }

    /// The default number of distinct images for a feed of `rows` rows: one for every two rows,
    /// at most 2,000 (enough variety for caches to be tested, bounded corpus generation time).
    static func defaultImageCount(rows: Int) -> Int { max(1, min(2_000, rows / 2)) }

    /// Draws each row's image from a Zipf distribution with exponent `skew` (0.7 by default: the
    /// most popular image appears in about 3% of rows, most images once or twice). Ranks are
    /// shuffled onto image ids so popular images are spread across sizes and formats.
    init(rows: Int, imageCount: Int, seed: UInt64, skew: Double = 0.7) {
        precondition(rows > 0 && imageCount > 0, "a feed needs rows and images")
        var random = SeededRandom(seed: seed, stream: "feed")
        var cumulative = [Double]()
        cumulative.reserveCapacity(imageCount)
        var total = 0.0
        for rank in 1...imageCount {
            total += 1 / pow(Double(rank), skew)
            cumulative.append(total)
        }
        var idForRank = Array(0..<imageCount)
        idForRank.shuffle(using: &random)
        imageForRow = (0..<rows).map { _ in
            let target = random.unit() * total
            var low = 0, high = imageCount - 1
            while low < high {
                let mid = (low + high) / 2
                if cumulative[mid] < target { low = mid + 1 } else { high = mid }
            }
            return idForRank[low]
        }
        self.imageCount = imageCount
    }

    /// Row i shows image i modulo `imageCount`.
    init(sequentialRows rows: Int, imageCount: Int) {
        self.init(imageForRow: (0..<rows).map { $0 % imageCount }, imageCount: imageCount)
    }

    /// A feed whose rows show given images, e.g. one image per row for a `{row}` URL template.
    init(imageForRow: [Int], imageCount: Int) {
        precondition(!imageForRow.isEmpty && imageForRow.allSatisfy { (0..<imageCount).contains($0) })
        self.imageForRow = imageForRow
        self.imageCount = imageCount
    }
}

