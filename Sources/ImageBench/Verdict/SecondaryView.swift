import Foundation

/// The view the verdict does not rank by, where it disagrees beyond noise: ranked by placeholder
/// time (while scrolling), the cells' waits at rest; ranked by wait at rest, their placeholder
/// time. The headline never gives the weaker view alone, nor hides the other where it points
/// the other way ("while scrolling: ×8 −21 ms; at rest: ×4 waits less").
enum SecondaryView {
    /// " At rest it is not: …", said after a headline that names `best`, or nil where the other
    /// view agrees, cannot tell, or has too few rests to pair.
    static func clause(best: Verdict.Cell, decision: Verdict.Decision, ranked: [Verdict.Cell]) -> String? {
        guard decision == .better || decision == .cheaper else { return nil }
        let byRest = best.rankedBy == .placeholder
        func view(_ cell: Verdict.Cell) -> SegmentMeans? {
            guard byRest else { return cell.placeholder }
            guard let rests = cell.restWait, rests.distinctSegments >= RestMeans.minimumRests else { return nil }
            return rests
        }
        guard let mine = view(best) else { return nil }
        // The other cell that beats it by most in the other view, beyond noise.
        let beating = ranked.filter { $0.name != best.name }.compactMap { other -> (Verdict.Cell, Interval)? in
            guard let theirs = view(other), let difference = mine.difference(from: theirs) else { return nil }
            let longerAtRests = byRest && difference.high >= 0 && (RestComparison(mine, theirs)?.showsLonger ?? false)
            return difference.low > 0 || longerAtRests ? (other, difference) : nil
        }.max { $0.1.center < $1.1.center }
        guard let (other, difference) = beating else { return nil }
        let counted = byRest ? "over \(difference.n) rests" : "paired over \(difference.n) trace segments"
        return byRest
            ? " At rest it is not: \(other.name) waits less once the scroll stops (\(best.name) \(Verdict.signed(difference)) in wait at rest, \(counted)); "
                + "--rank-by rest-wait ranks by it."
            : " While scrolling it is not: \(other.name) shows fewer placeholders (\(best.name) \(Verdict.signed(difference)) in placeholder time, \(counted))."
    }
}
