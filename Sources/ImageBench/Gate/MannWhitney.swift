import Foundation

/// The Mann–Whitney U test (Wilcoxon rank-sum), two-sided: are two sets of repeats drawn from the
/// same distribution? Rank-based, so it assumes nothing about the shape of the metric's
/// distribution and one outlier run cannot dominate it. Exact p-values for small samples without
/// ties (the usual case: a few repeats of a continuous metric), the normal approximation with tie
/// correction otherwise.
enum MannWhitney {
    struct Result: Sendable, Equatable {
        /// U of the first sample: pairs (x, y) with x > y, ties counting a half.
        let u: Double
        let pValue: Double
        /// Cliff's delta in [−1, 1]: P(x > y) − P(x < y). The effect size that goes with U.
        let cliffsDelta: Double
        let exact: Bool
    }

    /// The smallest two-sided p-value samples of these sizes can give (complete separation):
    /// 2 / C(n+m, n). With 3 runs a side it is 0.1, so at α = 0.05 such a test can never find a
    /// difference: the gate must know that rather than call every change noise.
    static func smallestPValue(_ n: Int, _ m: Int) -> Double {
        guard n > 0 && m > 0 else { return 1 }
        var arrangements = 1.0
        for k in 0..<min(n, m) { arrangements = arrangements * Double(n + m - k) / Double(k + 1) }
        return min(1, 2 / arrangements)
    }

    /// The fewest runs on each side for which the test can reach `alpha`.
    static func runsNeeded(alpha: Double) -> Int {
        var runs = 1
        while smallestPValue(runs, runs) >= alpha && runs < 1000 { runs += 1 }
        return runs
    }

    static func test(_ x: [Double], _ y: [Double]) -> Result {
        precondition(!x.isEmpty && !y.isEmpty, "two non-empty samples")
        var greater = 0.0, less = 0.0
        for a in x {
            for b in y {
                if a > b { greater += 1 } else if a < b { less += 1 }
            }
        }
        let n1 = x.count, n2 = y.count
        let pairs = Double(n1 * n2)
        let u = greater + (pairs - greater - less) / 2
        let delta = (greater - less) / pairs
        let combined = x + y
        let hasTies = Set(combined).count < combined.count
        if !hasTies && n1 + n2 <= 40 {
            return Result(u: u, pValue: exactPValue(u: u, n1: n1, n2: n2), cliffsDelta: delta, exact: true)
        }
        // Normal approximation with the tie-corrected variance.
        let n = Double(n1 + n2)
        var counts: [Double: Int] = [:]
        for value in combined { counts[value, default: 0] += 1 }
        let tieTerm = counts.values.reduce(0.0) { $0 + Double($1 * $1 * $1 - $1) }
        let variance = pairs / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else { return Result(u: u, pValue: 1, cliffsDelta: delta, exact: false) }
        let z = (abs(u - pairs / 2) - 0.5) / variance.squareRoot()
        let p = min(1, erfc(max(0, z) / 2.0.squareRoot()))
        return Result(u: u, pValue: p, cliffsDelta: delta, exact: false)
    }

    /// P(|U − n1·n2/2| ≥ |u − n1·n2/2|) under the null, by counting rank arrangements.
    static func exactPValue(u: Double, n1: Int, n2: Int) -> Double {
        // ways[i][j][k]: arrangements of i x's and j y's with U = k.
        let maxU = n1 * n2
        var ways = Array(repeating: Array(repeating: [Double](repeating: 0, count: maxU + 1), count: n2 + 1), count: n1 + 1)
        for i in 0...n1 {
            for j in 0...n2 {
                if i == 0 || j == 0 {
                    ways[i][j][0] = 1
                    continue
                }
                for k in 0...maxU {
                    // The largest value is an x (beats all j y's) or a y (beats nothing).
                    let withX = k >= j ? ways[i - 1][j][k - j] : 0
                    ways[i][j][k] = withX + ways[i][j - 1][k]
                }
            }
        }
        let total = ways[n1][n2].reduce(0, +)
        let center = Double(maxU) / 2
        let distance = abs(u - center)
        var extreme = 0.0
        for k in 0...maxU where abs(Double(k) - center) >= distance - 1e-9 { extreme += ways[n1][n2][k] }
        return min(1, extreme / total)
    }
}
