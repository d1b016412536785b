import Foundation

/// Wait at rest as the verdict compares it: one value per rest of the scroll (the rows' mean
/// wait for their images from the moment it stopped), paired across cells by the rest (the same
/// moment of the same trace in every cell), with the run-to-run noise added as for trace
/// segments (`SegmentMeans`). Settle time (the last row's wait) is reported beside it but not
/// ranked: on a slow network most rests end before any cell settles, and censored rests, equal in
/// every cell, tell nothing apart.
enum RestMeans {
    /// Below this many rests the verdict ranks by placeholder time instead, and says so. Three:
    /// the fewest at which the rest test (`RestComparison`) can decide anything (three of three
    /// longer beyond the floor: p = 0.031); two of two is p = 0.125 however large the waits.
    static let minimumRests = 3

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

/// Two cells' waits compared rest by rest, each rest against the run-to-run noise of one rest:
/// where one waited longer than the other beyond the noise floor, where shorter, and how likely so
/// lopsided a tally is by chance (`floorTest`). A few rests often carry most of a difference (the
/// stop after a fling, the feed's end), which widens a t interval past zero although one cell
/// waits longer at rest after rest; the tally counts only which way each rest went.
///
/// Why not a sign test: it asks each rest for a coin flip's worth of evidence, so five rests, every
/// one longer, give p = 0.0625 and decide nothing, however repeatable the run (3G, 3,000 rows: gcd
/// ×1 waited 85–573 ms longer than ×6 at four of five rests, the same to 1–2% in every repeat). A
/// rest beyond the floor is far rarer than a coin flip when nothing differs: measured, see
/// `chanceBeyondFloor`.
struct RestComparison: Sendable, Equatable {
    /// Rests where the first cell waited longer, and shorter, by more than the floor.
    let longer: Int
    let shorter: Int
    /// Rests compared (those within the floor count for neither side, but count: each could have
    /// gone either way).
    let rests: Int
    let p: Double

    /// A rest's difference smaller than this is noise: 5% of the two waits' mean, at least 2 ms
    /// (a row shown one frame later moves a ten-row screen's mean wait by 1.7 ms). One rest's wait
    /// moves by 1–2% between repeats of a run (3G, 3,000 rows, three repeats of three limits), so
    /// the floor is some three standard deviations of a difference.
    static func floor(_ a: Double, _ b: Double) -> Double { max(2, 0.05 * (a + b) / 2) }

    /// The chance, at most, that a rest's difference passes the floor one way when the two cells
    /// do the same thing: a quarter (each way; half in all). Measured: 4 of 137 rests compared
    /// between runs of one configuration passed it, two each way (2.9%, a 95% upper bound of
    /// 7.3%: repeats of gcd ×1, ×3 and ×6 on 3G and of the gate's baseline cells; operation-queue
    /// against gcd ×5 on five seeds and ×3 on 3G on three); a quarter each way leaves room for a
    /// machine far noisier than this one.
    static let chanceBeyondFloor = 0.25

    /// `a` against `b`, rest by rest (each rest's mean over repeats); nil without shared rests.
    init?(_ a: SegmentMeans, _ b: SegmentMeans) {
        // Each rest's mean over the repeats, and the variance of that mean where three or more
        // repeats measure it (else nil).
        func byRest(_ means: SegmentMeans) -> [Int: (mean: Double, variance: Double?)] {
            Dictionary(grouping: means.means, by: \.key.segment).mapValues { values in
                let xs = values.map(\.value), mean = xs.reduce(0, +) / Double(xs.count)
                guard xs.count >= 3 else { return (mean, nil) }
                return (mean, xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(xs.count - 1) / Double(xs.count))
            }
        }
        let (mine, theirs) = (byRest(a), byRest(b))
        let shared = mine.keys.filter { theirs[$0] != nil }
        guard !shared.isEmpty else { return nil }
        var (longer, shorter) = (0, 0)
        for rest in shared {
            let (x, y) = (mine[rest]!.mean, theirs[rest]!.mean)
            // Where repeats show a rest noisier than the floor assumes (a run slower throughout,
            // a host busy with other work), three standard errors of the difference instead.
            let measured = mine[rest]!.variance.flatMap { v in theirs[rest]!.variance.map { 3 * (v + $0).squareRoot() } } ?? 0
            guard abs(x - y) > max(Self.floor(x, y), measured) else { continue }
            if x > y { longer += 1 } else { shorter += 1 }
        }
        (self.longer, self.shorter, rests) = (longer, shorter, shared.count)
        p = Self.floorTest(longer: longer, shorter: shorter, rests: shared.count)
    }

    /// The two-sided p of a tally as lopsided as `longer` − `shorter` over `rests` rests when each
    /// rest independently passes the floor longer with chance `q`, shorter with chance `q`, and
    /// stays within it otherwise (a trinomial; the sign test is the case q = ½). Where it decides
    /// (p < 5%, up to 30 rests, checked against q from 0.01 to 0.2), a larger `q` gives a larger p:
    /// a `q` above the true chance errs towards "undecided". It takes rests as independent: a run
    /// slower throughout by more than the floor would pass it at every rest, so with three or more
    /// repeats the floor widens to what they show; with fewer it rests on the run-to-run noise
    /// measured here (1–2% a rest, `floor`), and on the overloaded-host check that unranks a cell. Exact up to 400 rests,
    /// then the normal approximation (the difference has variance 2q per rest).
    static func floorTest(longer: Int, shorter: Int, rests n: Int, q: Double = chanceBeyondFloor) -> Double {
        let d = abs(longer - shorter)
        guard d > 0, n > 0 else { return 1 }
        guard n <= 400 else {
            let z = (Double(d) - 0.5) / (2 * q * Double(n)).squareRoot()
            return min(1, erfc(z / 2.squareRoot()))
        }
        // log n!, then each (l, s) term of the trinomial in logarithms: no overflow at any n.
        var logFactorial = [0.0]
        for i in 1...n { logFactorial.append(logFactorial[i - 1] + log(Double(i))) }
        let (logQ, logStay) = (log(q), log(1 - 2 * q))
        var tail = 0.0
        for l in 0...n {
            for s in 0...(n - l) where abs(l - s) >= d {
                let stay = n - l - s
                if stay > 0 && q >= 0.5 { continue }
                tail += exp(logFactorial[n] - logFactorial[l] - logFactorial[s] - logFactorial[stay]
                            + Double(l + s) * logQ + (stay > 0 ? Double(stay) * logStay : 0))
            }
        }
        return min(1, tail)
    }

    /// The first cell waited longer at more rests, beyond chance (at `Confidence.alpha`).
    var showsLonger: Bool { longer > shorter && p < Confidence.alpha }
}
