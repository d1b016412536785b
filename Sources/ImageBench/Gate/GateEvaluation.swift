import Foundation

/// The gate's decision for one threshold in one strategy × concurrency cell.
public struct GateCheck: Sendable {
    enum Status: String, Sendable {
        /// Within the threshold.
        case pass
        /// Beyond the threshold, but the repeats do not show a real difference: runner noise.
        case noise
        /// Beyond the threshold and (with enough repeats) significantly different.
        case regression
        /// A regression that a re-run of its cell did not show again (`--confirm`): not failed.
        case unconfirmed
    }

    let cell: ResultCell
    let threshold: Threshold
    let baselineMedian: Double?
    let currentMedian: Double
    let baselineRuns: Int
    let currentRuns: Int
    /// Mann–Whitney two-sided p-value; nil when either side has too few repeats to test.
    let pValue: Double?
    let cliffsDelta: Double?
    var status: Status

    var relativeChange: Double? {
        guard let baselineMedian, baselineMedian != 0 else { return nil }
        return (currentMedian - baselineMedian) / abs(baselineMedian)
    }
}

/// `imgbench gate`: each threshold checked in each cell the two result sets share. A metric
/// regresses only when its median change exceeds the threshold AND a Mann–Whitney U test finds
/// the two sets of repeats different at `alpha`. When there are too few repeats for the test ever
/// to reach `alpha` (3 a side at 0.05), no test is possible and the threshold alone decides.
///
/// Between virtual-time runs (`exact`) there is no noise: the same plan gives the same
/// summary.csv. Each threshold is judged on the values as they are, and every count of each cell
/// (requests, bytes, hits, cancellations, errors) must equal the baseline's: a count that moved
/// means the policies' or the pipeline's logic changed, which is what such a gate is for.
public struct GateEvaluation: Sendable {
    public private(set) var checks: [GateCheck]
    let alpha: Double
    /// Cells present in only one of the two result sets (not gated).
    let unmatched: [String]
    /// Whether failing cells were run again (`--confirm`) and only regressions seen twice count.
    private(set) var confirmedByRerun = false
    /// Both sides ran in virtual time: compared exactly, counts included.
    let exact: Bool
    /// Counts compared exactly (cells × counts), equal or not.
    private(set) var countsCompared = 0

    public var regressed: Bool { checks.contains { $0.status == .regression } }

    public init(baseline: ResultsDirectory, current: ResultsDirectory, thresholds: [Threshold], alpha: Double = 0.05,
                exact: Bool = false) {
        self.alpha = alpha
        self.exact = exact
        let baselineCells = Dictionary(uniqueKeysWithValues: baseline.cells.map { ($0.cell, $0.runs) })
        var checks: [GateCheck] = []
        for (cell, runs) in current.cells {
            let baseRuns = baselineCells[cell]
            for threshold in thresholds {
                let now = runs.compactMap { $0.value(threshold.metric) }
                guard !now.isEmpty else { continue }
                let before = baseRuns?.compactMap { $0.value(threshold.metric) } ?? []
                if case .limit = threshold.rule {} else if before.isEmpty { continue }
                let currentMedian = RepeatStatistics.median(of: now)
                let baselineMedian = before.isEmpty ? nil : RepeatStatistics.median(of: before)
                let exceeded = threshold.exceeded(baseline: baselineMedian, current: currentMedian)
                var test: MannWhitney.Result?
                if !exact && MannWhitney.smallestPValue(before.count, now.count) < alpha {
                    test = MannWhitney.test(now, before)
                }
                let status: GateCheck.Status
                if !exceeded {
                    status = .pass
                } else if case .limit = threshold.rule {
                    status = .regression
                } else if let test {
                    status = test.pValue < alpha ? .regression : .noise
                } else {
                    status = .regression
                }
                checks.append(GateCheck(cell: cell, threshold: threshold,
                                        baselineMedian: baselineMedian,
                                        currentMedian: currentMedian, baselineRuns: before.count, currentRuns: now.count,
                                        pValue: test?.pValue, cliffsDelta: test?.cliffsDelta, status: status))
            }
        }
        if exact {
            for (cell, runs) in current.cells {
                guard let baseRuns = baselineCells[cell] else { continue }
                for metric in Metric.catalog where metric.isCount {
                    let now = runs.compactMap { $0.value(metric.name) }, before = baseRuns.compactMap { $0.value(metric.name) }
                    guard !now.isEmpty && !before.isEmpty else { continue }
                    countsCompared += 1
                    let (baselineMedian, currentMedian) = (RepeatStatistics.median(of: before), RepeatStatistics.median(of: now))
                    guard baselineMedian != currentMedian else { continue }
                    checks.append(GateCheck(cell: cell, threshold: Threshold(unchanged: metric), baselineMedian: baselineMedian,
                                            currentMedian: currentMedian, baselineRuns: before.count, currentRuns: now.count,
                                            pValue: nil, cliffsDelta: nil, status: .regression))
                }
            }
        }
        self.checks = checks
        unmatched = Set(baseline.cells.map(\.cell)).symmetricDifference(current.cells.map(\.cell)).map(\.name).sorted()
        // A threshold no cell could check: its metric is missing on a side (a baseline recorded
        // before the metric existed). Said, never dropped: a gate that checks less than it was
        // asked to would pass for the wrong reason.
        unevaluated = thresholds.filter { threshold in !checks.contains { $0.threshold.description == threshold.description } }.map { threshold in
            let has = { (directory: ResultsDirectory) in directory.header.contains(threshold.metric) }
            let side = !has(current) ? "the current runs" : !has(baseline) ? "the baseline" : "every cell both sides share"
            return "'\(threshold.description)': \(threshold.metric) is missing from \(side)"
        }
    }

    /// Thresholds that no cell could check, each with why.
    public let unevaluated: [String]

    /// The cells that regressed, for a confirming re-run.
    public var regressedCells: [ResultCell] {
        var seen = Set<ResultCell>()
        return checks.filter { $0.status == .regression && seen.insert($0.cell).inserted }.map(\.cell)
    }

    /// This evaluation after its failing cells were run again: a regression stands only when the
    /// re-run's evaluation of the same check is a regression too (runner hiccups rarely repeat).
    public func confirmed(by rerun: GateEvaluation) -> GateEvaluation {
        var result = self
        result.confirmedByRerun = true
        for index in result.checks.indices where result.checks[index].status == .regression {
            let check = result.checks[index]
            let again = rerun.checks.first { $0.cell == check.cell && $0.threshold == check.threshold }
            if again?.status != .regression { result.checks[index].status = .unconfirmed }
        }
        return result
    }

    // MARK: - output

    var rows: [[String]] {
        checks.map { check in
            [check.cell.name, check.threshold.description, check.baselineMedian.map(Format.compact) ?? "–", Format.compact(check.currentMedian),
             check.relativeChange.map(Format.change) ?? "–",
             check.pValue.map { String(format: "%.3f", $0) } ?? (exact ? "n/a (virtual: exact)" : "n/a (too few runs)"),
             check.cliffsDelta.map { String(format: "%+.2f", $0) } ?? "–", check.status == .unconfirmed ? "NOT CONFIRMED" : check.status.rawValue.uppercased()]
        }
    }

    static let header = ["cell", "threshold", "baseline", "current", "change", "p (Mann–Whitney)", "Cliff's δ", "verdict"]

    var confirmationSentence: String {
        confirmedByRerun ? " Cells that failed were run again; a regression counts only if the re-run regressed too (else NOT CONFIRMED)." : ""
    }

    /// Checks of a change (not a limit) that no test could judge: too few runs a side for
    /// Mann–Whitney ever to reach α, so the threshold alone decided.
    var untested: [GateCheck] {
        checks.filter { check in
            if exact { return false }  // no noise to test against
            if case .limit = check.threshold.rule { return false }
            return check.pValue == nil
        }
    }

    var verdictLine: String {
        let regressions = checks.filter { $0.status == .regression }
        let needed = MannWhitney.runsNeeded(alpha: alpha)
        // Said on the last line, where a reader stops: a pass no test could have failed is weaker.
        let untestedNote = untested.isEmpty ? "" : "; \(untested.count) of the \(checks.count) could not be tested against noise "
            + "(\(untested.map(\.baselineRuns).min() ?? 0) baseline and \(untested.map(\.currentRuns).min() ?? 0) current runs a cell; a test needs \(needed) a side), "
            + "so their thresholds alone decided"
        if regressions.isEmpty {
            return "PASS: \(checks.count) check\(checks.count == 1 ? "" : "s"), no regression" + (checks.contains { $0.status == .noise }
                ? " (changes beyond a threshold but within noise are marked NOISE)" : "") + untestedNote + exactNote
        }
        return "REGRESSION: " + regressions.map { "\($0.threshold.metric) in \($0.cell.name)" }.joined(separator: ", ") + untestedNote + exactNote
    }

    /// What a virtual gate compared beyond the thresholds.
    private var exactNote: String {
        guard exact else { return "" }
        let changed = checks.filter { $0.threshold.rule == .unchanged }.count
        return "; virtual time, compared exactly: \(countsCompared - changed) of \(countsCompared) counts equal to the baseline's"
    }

    /// How the checks were judged, for gate.md.
    private var method: String {
        if exact {
            return "Both sides ran in virtual time, where the same plan gives the same numbers: each threshold is judged on the values "
                + "as they are (no noise, no test), and every count (requests, bytes, hits, cancellations, errors) must equal the "
                + "baseline's. A moved count means the policies' or the pipeline's logic changed; record the baseline again if that was meant."
        }
        return "A check fails when the median change exceeds its threshold and a two-sided Mann–Whitney U test "
            + "finds the repeats different at α = \(alpha) (with fewer than \(MannWhitney.runsNeeded(alpha: alpha)) runs a side the test cannot "
            + "reach α and the threshold alone decides)."
    }

    /// The verdict table for a terminal.
    public var text: String {
        let all = [Self.header] + rows
        let widths = Self.header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        let lines = all.map { fields in
            fields.enumerated().map { index, field in field.padding(toLength: widths[index], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        return (lines + ["", verdictLine + (confirmedByRerun ? " (failures confirmed by a re-run)" : "")]).joined(separator: "\n")
    }

    /// `gate.md`: a Markdown table ready for a pull-request comment.
    public var markdown: String {
        let table = ([Self.header, Self.header.map { _ in "---" }] + rows).map { "| " + $0.joined(separator: " | ") + " |" }
        return """
        ## imgbench gate: \(regressed ? "regression" : "pass")

        \(table.joined(separator: "\n"))

        \(verdictLine). \(method)\(confirmationSentence)

        """
    }

    /// `gate.json`: the verdict and every check, for tools.
    public func json() throws -> String {
        let document: [String: Any] = [
            "verdict": regressed ? "regression" : "pass",
            "alpha": alpha,
            "runs_needed_for_test": MannWhitney.runsNeeded(alpha: alpha),
            "test": exact ? "none: virtual time, values compared exactly"
                : "Mann-Whitney U, two-sided (exact without ties, normal approximation with tie correction otherwise)",
            "time": exact ? "virtual" : "real",
            "counts_compared": countsCompared,
            "unmatched_cells": unmatched,
            "confirmed_by_rerun": confirmedByRerun,
            "untested_checks": untested.count,
            "checks": checks.map { check in
                [
                    // The limit as text, as summary.csv has it (gate.json said so before cells were typed).
                    "cell": check.cell.name, "strategy": check.cell.strategy.name, "concurrency": String(check.cell.concurrency),
                    "metric": check.threshold.metric, "threshold": check.threshold.description,
                    "baseline_median": check.baselineMedian ?? NSNull(), "current_median": check.currentMedian,
                    "relative_change": check.relativeChange ?? NSNull(), "baseline_runs": check.baselineRuns,
                    "current_runs": check.currentRuns, "p_value": check.pValue ?? NSNull(),
                    "cliffs_delta": check.cliffsDelta ?? NSNull(), "status": check.status.rawValue,
                ] as [String: Any]
            },
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
