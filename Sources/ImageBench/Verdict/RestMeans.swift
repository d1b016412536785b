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
