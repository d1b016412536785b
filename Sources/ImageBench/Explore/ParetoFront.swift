/// The cells no other cell beats on both counts: less wait (the verdict's ranked metric) and fewer
/// bytes per shown image. Walked from the cheapest to the fastest, each step says what the next
/// cell gains and what it pays: the trade a user actually chooses along, where a single ranking
/// hides that the fastest cell may cost twice the data for a millisecond.
struct ParetoFront: Sendable {
    struct Step: Sendable {
        let cell: ExploredCell
        /// Against the step before (nil for the cheapest): ms of wait saved, bytes per image added.
        let savesMs: Double?
        let addsBytesPerImage: Double?
    }

    let steps: [Step]

    /// Ranked cells only; a cell that is no faster than a cheaper one is not on the front. Ties on
    /// both counts keep the first in `cells`' order (the space's order).
    init(_ cells: [ExploredCell]) {
        let ranked = cells.filter(\.ranked)
        let front = ranked.filter { cell in
            !ranked.contains { other in
                other.meanMs <= cell.meanMs && other.bytesPerImage <= cell.bytesPerImage
                    && (other.meanMs < cell.meanMs || other.bytesPerImage < cell.bytesPerImage)
            }
        }
        var seen = Set<[Double]>()
        let distinct = front.filter { seen.insert([$0.meanMs, $0.bytesPerImage]).inserted }
            .sorted { ($0.bytesPerImage, -$0.meanMs) < ($1.bytesPerImage, -$1.meanMs) }
        steps = distinct.enumerated().map { index, cell in
            guard index > 0 else { return Step(cell: cell, savesMs: nil, addsBytesPerImage: nil) }
            let before = distinct[index - 1]
            return Step(cell: cell, savesMs: before.meanMs - cell.meanMs, addsBytesPerImage: cell.bytesPerImage - before.bytesPerImage)
        }
    }
}
