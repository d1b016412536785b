import Foundation

/// Wait at rest as the verdict compares it: one value per rest of the scroll (the rows' mean
/// wait for their images from the moment it stopped), paired across cells by the rest (the same
/// moment of the same trace in every cell), with the run-to-run noise added as for trace
/// segments (`SegmentMeans`). Settle time (the last row's wait) is reported beside it but not
/// ranked: on a slow network most rests end before any cell settles, and censored rests, equal in
/// every cell, tell nothing apart.
enum RestMeans {
    /// Below this many rests the verdict ranks by placeholder time instead, and says so. Six: a t
    /// over fewer pairs is wide (2.78 × the spread at five), and rests differ in what they hold (the
    /// first screen, a stop after a fling, the feed's end), so an effect must show in most of them.
    /// Measured on 3G at 3,000 rows (five rests: gcd ×1 waited longer than ×3 at every one, by
    /// 22–565 ms) the interval still held zero.
    static let minimumRests = 6

    /// The waits at rest of `runs` (a cell's repeats), keyed by repeat and rest; nil without any.
    static func of(_ runs: [RunResult]) -> SegmentMeans? {
        let values = runs.flatMap { run in
            run.distributions.settleSamples.map { sample in
                (key: SegmentMeans.Key(repetition: run.cell.repetition, segment: number(sample)), milliseconds: Double(sample.waitNanoseconds) / 1e6)
            }
        }
        return values.isEmpty ? nil : SegmentMeans(keyed: values)
    }

    /// client, session and rest as one number, equal for the same rest in every cell: decimal
    /// fields of 12 and 6 digits (users ≤ 10,000, sessions and rests < 10^6 each), so no two
    /// rests share one.
    static func number(_ sample: SettleSample) -> Int {
        sample.client * 1_000_000_000_000 + min(sample.session, 999_999) * 1_000_000 + min(sample.rest, 999_999)
    }
}

/// Two cells' waits compared rest by rest: where one waited longer than the other beyond the
/// noise floor, where shorter, and the exact two-sided sign test over those rests. A few rests
/// often carry most of a difference (the stop after a fling, the feed's end), which widens a t
/// interval past zero although one cell waits longer at rest after rest; the sign test counts
/// only which way each rest went.
struct RestComparison: Sendable, Equatable {
    /// Rests where the first cell waited longer, and shorter, by more than the floor.
    let longer: Int
    let shorter: Int
    /// Rests compared (those within the floor are ties and count for neither side).
    let rests: Int
    let p: Double

    /// A rest's difference smaller than this is noise: 5% of the two waits' mean, at least 2 ms
    /// (a row shown one frame later moves a ten-row screen's mean wait by 1.7 ms).
    static func floor(_ a: Double, _ b: Double) -> Double { max(2, 0.05 * (a + b) / 2) }

    /// `a` against `b`, rest by rest (each rest's mean over repeats); nil without shared rests.
    init?(_ a: SegmentMeans, _ b: SegmentMeans) {
        func byRest(_ means: SegmentMeans) -> [Int: Double] {
            Dictionary(grouping: means.means, by: \.key.segment).mapValues { values in
                values.reduce(0) { $0 + $1.value } / Double(values.count)
            }
        }
        let (mine, theirs) = (byRest(a), byRest(b))
        let shared = mine.keys.filter { theirs[$0] != nil }
        guard !shared.isEmpty else { return nil }
        var (longer, shorter) = (0, 0)
        for rest in shared {
            let (x, y) = (mine[rest]!, theirs[rest]!)
            guard abs(x - y) > Self.floor(x, y) else { continue }
            if x > y { longer += 1 } else { shorter += 1 }
        }
        (self.longer, self.shorter, rests) = (longer, shorter, shared.count)
        p = Self.signTest(longer, shorter)
    }

    /// The exact two-sided binomial p of `k` and `m` signs (half each under no difference).
    static func signTest(_ k: Int, _ m: Int) -> Double {
        let n = k + m
        guard n > 0 else { return 1 }
        let low = min(k, m)
        let logHalf = Double(n) * log(0.5)
        // C(n, i) in logarithms, built up term by term: exact enough, and no overflow at any n.
        var logChoose = 0.0, tail = 0.0
        for i in 0...low {
            if i > 0 { logChoose += log(Double(n - i + 1)) - log(Double(i)) }
            tail += exp(logChoose + logHalf)
        }
        return min(1, 2 * tail)
    }

    /// The first cell waited longer at more rests, beyond chance at 95%.
    var showsLonger: Bool { longer > shorter && p < 0.05 }
}
