/// Uncertainty from one run, by batch means: the trace is cut into `segments` stretches of equal
/// length; each request belongs to the stretch in which its row appeared, and each stretch gives
/// one mean. Stretches are far apart in time compared with one load, so their means are close to
/// independent, and Student's t over them gives an interval for the run's mean. Every strategy
/// scrolls the same trace, so two cells' stretches pair up: the paired difference cancels what
/// the stretch itself costs (a fling over new rows, a dwell over cached ones) and leaves the
/// strategy's effect, to which the run-to-run noise no pairing can see is added (`runNoise`).
struct SegmentMeans: Sendable, Equatable {
    /// Stretches per run: enough degrees of freedom for a useful t (2.09 at 19) and for the
    /// paired test to see a difference that holds in most of the trace, few enough that each
    /// holds dozens of requests on a 1,000-row trace. (At 10, a 2× difference between two
    /// limits on 1,000 rows was still called a tie.)
    static let segments = 20

    /// Mean per (repeat, stretch) that had requests, in milliseconds.
    let means: [Key: Double]
    /// Requests per (repeat, stretch): each stretch's weight, so the interval is of the mean over
    /// requests that it is centred on.
    let counts: [Key: Int]
    /// The mean over every request.
    let overall: Double
    let requests: Int

    struct Key: Hashable, Sendable {
        let repetition: Int
        let segment: Int
    }

    /// One request's placeholder time: in which repeat, from which frame.
    struct Sample: Sendable {
        let repetition: Int
        let visibleFrame: Int
        let milliseconds: Double
        /// The trace scrolled (`RunCell.trace`): a budget round's stretches are stretches of
        /// another session, numbered after the first trace's, and pair only with that round's.
        var trace = 0

        init(repetition: Int, visibleFrame: Int, milliseconds: Double, trace: Int = 0) {
            (self.repetition, self.visibleFrame, self.milliseconds, self.trace) = (repetition, visibleFrame, milliseconds, trace)
        }
    }

    /// The placeholder times of `runs` (the repeats of one cell), cut by the frame each row
    /// appeared in, over a trace of `traceFrames` frames.
    init(placeholdersOf runs: [RunResult], traceFrames: Int) {
        self.init(runs.flatMap { run in
            run.requests.compactMap { request in
                request.placeholder.map { Sample(repetition: run.cell.repetition, visibleFrame: request.visibleFrame, milliseconds: Double($0) / 1e6,
                                                 trace: run.cell.trace) }
            }
        }, traceFrames: traceFrames)
    }

    /// The same from samples (read back from requests.csv by `compare`).
    init(_ samples: [Sample], traceFrames: Int) {
        var sums: [Key: (total: Double, count: Int)] = [:]
        var total = 0.0
        for sample in samples {
            // Another session's trace has its own length; cut by the first's, its end stays in the last stretch.
            let segment = sample.trace * Self.segments + min(Self.segments - 1, max(0, sample.visibleFrame * Self.segments / max(1, traceFrames)))
            let key = Key(repetition: sample.repetition, segment: segment)
            sums[key, default: (0, 0)].total += sample.milliseconds
            sums[key, default: (0, 0)].count += 1
            total += sample.milliseconds
        }
        means = sums.mapValues { $0.total / Double($0.count) }
        counts = sums.mapValues(\.count)
        overall = samples.isEmpty ? 0 : total / Double(samples.count)
        requests = samples.count
    }

    /// One value per key (a rest of the scroll, `RestMeans`), already paired by its key.
    init(keyed values: [(key: Key, milliseconds: Double)]) {
        var sums: [Key: (total: Double, count: Int)] = [:]
        for value in values {
            sums[value.key, default: (0, 0)].total += value.milliseconds
            sums[value.key, default: (0, 0)].count += 1
        }
        means = sums.mapValues { $0.total / Double($0.count) }
        counts = sums.mapValues(\.count)
        overall = values.isEmpty ? 0 : values.reduce(0) { $0 + $1.milliseconds } / Double(values.count)
        requests = values.count
    }

    /// Distinct stretches (or rests) over the repeats.
    var distinctSegments: Int { Set(means.keys.map(\.segment)).count }

    /// The 95% interval of the mean: t over the stretch means, cut at zero (a time is never
    /// negative; the t interval is symmetric and would say so for a short, noisy mean). Nil with
    /// fewer than two stretches.
    var interval: Interval? {
        let (bySegment, weights) = (segmentMeans, segmentWeights)
        return Interval.weighted(bySegment.keys.sorted().map { (bySegment[$0]!, weights[$0]!) }, center: overall)
            .map { Interval(center: $0.center, low: max(0, $0.low), high: $0.high, n: $0.n) }
    }

    /// Each stretch's requests in one run (the mean over the repeats that had it).
    var segmentWeights: [Int: Double] {
        Dictionary(grouping: orderedKeys, by: \.segment).mapValues { keys in Double(keys.reduce(0) { $0 + counts[$1]! }) / Double(keys.count) }
    }

    /// Each stretch's mean over the repeats. Repeats scroll the same trace, so a stretch's repeats
    /// are one stretch measured again, not more stretches: what sets the interval (how the cost,
    /// or an effect, varies from stretch to stretch over the trace) they reproduce to a fraction
    /// of a millisecond. Counted as pairs of their own they narrowed an interval by √repeats and
    /// made "--repeat 3 narrows it" true of data no more informative than one run; averaged
    /// first, repeats narrow only the run-to-run noise (`runNoiseOfMean`), which is all they measure.
    var segmentMeans: [Int: Double] {
        Dictionary(grouping: orderedKeys, by: \.segment).mapValues { keys in keys.reduce(0) { $0 + means[$1]! } / Double(keys.count) }
    }

    /// How run-to-run noise moves a cell's mean placeholder time, as a share of it: the smallest
    /// value assumed. Pairing the stretches cannot see it (a run that is slower throughout
    /// shifts every stretch alike), so it is added to the paired difference's variance. Measured
    /// here: 10 runs of the default command (5,000 rows, three strategies at 5) had per-cell
    /// standard deviations of 0.4–0.9% of the mean, and the difference of two cells in one run
    /// 0.7–1.0% (0.2–0.3 ms at 29 ms); without this term the paired t called such a difference
    /// in 3 of those 10 runs, each time for another strategy.
    static let runNoise = 0.01

    /// The stretches in order (repeat, then segment): sums taken in one order are the same to the
    /// last bit in every process, so a report written again prints the interval the run printed.
    private var orderedKeys: [Key] {
        means.keys.sorted { ($0.repetition, $0.segment) < ($1.repetition, $1.segment) }
    }

    /// Each repeat's mean over its requests (its stretches weighted by their requests).
    var repeatMeans: [Double] {
        Dictionary(grouping: orderedKeys, by: \.repetition).sorted { $0.key < $1.key }.map { _, keys in
            let requests = keys.reduce(0) { $0 + counts[$1]! }
            return keys.reduce(0) { $0 + means[$1]! * Double(counts[$1]!) } / Double(max(1, requests))
        }
    }

    /// The run-to-run standard deviation of this cell's mean over its repeats: `runNoise` of the
    /// mean, or what three or more repeats show when that is more; divided by √repeats.
    var runNoiseOfMean: Double {
        let repeats = repeatMeans
        var deviation = Self.runNoise * overall
        if repeats.count >= 3 {
            let mean = repeats.reduce(0, +) / Double(repeats.count)
            let observed = (repeats.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(repeats.count - 1)).squareRoot()
            deviation = max(deviation, observed)
        }
        return deviation / Double(max(1, repeats.count)).squareRoot()
    }

    /// How much higher this cell's mean is than `other`'s, paired stretch by stretch (each the
    /// mean over its repeats), with its 95% interval: t over the stretch differences, widened by both cells' run-to-run noise
    /// (added in quadrature). Nil when fewer than two stretches are in both.
    func difference(from other: SegmentMeans) -> Interval? {
        let (mine, theirs) = (segmentMeans, other.segmentMeans)
        let (myWeights, theirWeights) = (segmentWeights, other.segmentWeights)
        let differences = mine.keys.sorted().compactMap { segment in
            theirs[segment].map { (mine[segment]! - $0, myWeights[segment]! + theirWeights[segment]!) }
        }
        // Centred on the difference of the two means as they are printed (over requests, not
        // over stretches), so the sign never contradicts them; its spread is the stretches',
        // each weighted by its requests (`Interval.weighted`).
        guard let paired = Interval.weighted(differences, center: overall - other.overall) else { return nil }
        let t = StudentT.twoSided(degreesOfFreedom: paired.n - 1)
        let pairedError = (paired.high - paired.center) / t
        let (myNoise, theirNoise) = (runNoiseOfMean, other.runNoiseOfMean)
        let runs = myNoise * myNoise + theirNoise * theirNoise
        let half = t * (pairedError * pairedError + runs).squareRoot()
        var interval = Interval(center: paired.center, low: paired.center - half, high: paired.center + half, n: paired.n)
        interval.runNoiseShare = runs > 0 ? runs / (pairedError * pairedError + runs) : 0
        return interval
    }
}

/// An estimate with its 95% interval.
struct Interval: Sendable, Equatable {
    let center: Double
    let low: Double
    let high: Double
    /// The samples the interval comes from.
    let n: Int
    /// The share of a difference's variance that is run-to-run noise (what repeats narrow); the
    /// rest is how the difference varies over the trace (what only more trace narrows).
    var runNoiseShare = 0.0

    /// Whether zero is inside: no difference shown.
    var includesZero: Bool { low <= 0 && high >= 0 }

    /// center ± t(0.975, n − 1) × the standard error of the weighted mean of `samples` (batch
    /// means of unequal sizes: the variance of a ratio estimator, k/(k−1) Σ wᵢ²(xᵢ − x̄)² with the
    /// weights summing to 1; with equal weights, the textbook s²/k). A mean over requests weights
    /// each stretch by its requests: taken unweighted, the spread came from the stretches where
    /// the scroll stopped (4 to 46 requests each, beside 100 to 180 elsewhere), and a limit of 8 that beat 1 in
    /// all 19 stretches (−22.6 ms over the requests) had an interval of ±48 ms; weighted, ±13.
    static func weighted(_ samples: [(value: Double, weight: Double)], center: Double) -> Interval? {
        let total = samples.reduce(0) { $0 + $1.weight }
        guard samples.count >= 2, total > 0 else { return nil }
        let mean = samples.reduce(0) { $0 + $1.weight * $1.value } / total
        let k = Double(samples.count)
        let variance = k / (k - 1) * samples.reduce(0) { sum, sample in
            let share = sample.weight / total
            return sum + share * share * (sample.value - mean) * (sample.value - mean)
        }
        let half = StudentT.twoSided(degreesOfFreedom: samples.count - 1) * variance.squareRoot()
        return Interval(center: center, low: center - half, high: center + half, n: samples.count)
    }

    /// center ± t(0.975, n − 1) × standard error of `samples`.
    static func of(_ samples: [Double], center: Double) -> Interval? {
        guard samples.count >= 2 else { return nil }
        let mean = samples.reduce(0, +) / Double(samples.count)
        let variance = samples.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(samples.count - 1)
        let half = StudentT.twoSided(degreesOfFreedom: samples.count - 1) * (variance / Double(samples.count)).squareRoot()
        return Interval(center: center, low: center - half, high: center + half, n: samples.count)
    }
}

