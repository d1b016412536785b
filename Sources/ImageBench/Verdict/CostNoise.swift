/// Whether two cells' costs per displayed image (bytes, CPU) differ beyond their noise: over
/// repeats where each side has three or more (Welch's 95% interval of the difference of the
/// means), else by a share measured between runs of one configuration (`Verdict.bytesTolerance`,
/// `cpuTolerance`). A tie is broken by cost only where this says the costs differ.
enum CostNoise {
    /// −1: `a` costs less beyond noise; +1: more; 0: alike as far as the runs tell.
    static func compare(_ a: [Double], _ b: [Double], tolerance: Double) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        let (meanA, meanB) = (mean(a), mean(b))
        if a.count >= 3 && b.count >= 3 {
            let error = (variance(a) / Double(a.count) + variance(b) / Double(b.count)).squareRoot()
            let half = StudentT.twoSided(degreesOfFreedom: min(a.count, b.count) - 1) * error
            // A difference the repeats show, and not a sliver of the cost (2%: below what anyone pays for).
            guard abs(meanA - meanB) > max(half, 0.02 * max(meanA, meanB)) else { return 0 }
        } else {
            guard abs(meanA - meanB) > tolerance * max(meanA, meanB) else { return 0 }
        }
        return meanA < meanB ? -1 : 1
    }

    static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }

    static func variance(_ values: [Double]) -> Double {
        let m = mean(values)
        return values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(max(1, values.count - 1))
    }
}
