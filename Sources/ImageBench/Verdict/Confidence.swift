import Foundation

/// The error rate every interval and test of a verdict is made at: 5%, or less where a run looks
/// at its data more than once before it stops (`--budget`: each of at most `looks` looks at
/// 5% / looks, Bonferroni's split, so all of them together are wrong at most 5% of the time
/// however the stopping depends on what they saw). A task-local value, so the one level reaches
/// every interval a report prints without being passed through each of them.
enum Confidence {
    @TaskLocal static var alpha = 0.05

    /// "95%", or "99.2%" under a budget's split.
    static var label: String {
        let percent = 100 * (1 - alpha)
        return percent == percent.rounded() ? String(format: "%.0f%%", percent) : String(format: "%.1f%%", percent)
    }
}

/// Student's t distribution, as much of it as a two-sided interval needs.
enum StudentT {
    /// The quantile at 1 − α/2 (`Confidence.alpha`) for `df` degrees of freedom.
    static func twoSided(degreesOfFreedom df: Int) -> Double {
        guard df >= 1 else { return .infinity }
        return Confidence.alpha == 0.05 ? quantile975(degreesOfFreedom: df) : quantile(1 - Confidence.alpha / 2, degreesOfFreedom: df)
    }

    /// The 97.5th percentile for 1 to 30 degrees of freedom (tables; checked against SciPy's
    /// `t.ppf(0.975, df)`), then the normal approximation with a 1/df correction. Kept as it was:
    /// a report written again prints the interval the run printed.
    static func quantile975(degreesOfFreedom df: Int) -> Double {
        let table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                     2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                     2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
        guard df >= 1 else { return .infinity }
        return df <= table.count ? table[df - 1] : 1.959964 + 2.37 / Double(df)
    }

    /// The `p` quantile (p > ½) by bisection on the distribution function: exact to 1e-9, and
    /// the few hundred steps cost nothing beside a run.
    static func quantile(_ p: Double, degreesOfFreedom df: Int) -> Double {
        var (low, high) = (0.0, 1.0)
        while cdf(high, df) < p && high < 1e12 { high *= 2 }
        for _ in 0..<200 where high - low > 1e-10 {
            let middle = (low + high) / 2
            if cdf(middle, df) < p { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// P(T ≤ t) for t ≥ 0: 1 − ½ I_{ν/(ν+t²)}(ν/2, ½).
    static func cdf(_ t: Double, _ df: Int) -> Double {
        let v = Double(df)
        return 1 - 0.5 * regularizedBeta(v / (v + t * t), v / 2, 0.5)
    }

    /// I_x(a, b), by its continued fraction (Lentz's method; Numerical Recipes' betacf).
    static func regularizedBeta(_ x: Double, _ a: Double, _ b: Double) -> Double {
        guard x > 0 else { return 0 }
        guard x < 1 else { return 1 }
        let logBeta: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
        let front: Double = exp(logBeta + a * log(x) + b * log(1 - x))
        // The fraction converges fast for x < (a + 1) / (a + b + 2); otherwise use the symmetry.
        if x > (a + 1) / (a + b + 2) { return 1 - regularizedBeta(1 - x, b, a) }
        let tiny = 1e-300
        var (c, d) = (1.0, 1 - (a + b) * x / (a + 1))
        d = 1 / (abs(d) < tiny ? tiny : d)
        var fraction = d
        for m in 1...300 {
            let m = Double(m)
            let even: Double = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
            let odd: Double = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
            for numerator in [even, odd] {
                d = 1 + numerator * d
                d = 1 / (abs(d) < tiny ? tiny : d)
                c = 1 + numerator / c
                if abs(c) < tiny { c = tiny }
                fraction *= c * d
            }
            if abs(c * d - 1) < 1e-15 { break }
        }
        return front * fraction / a
    }
}
