import Foundation

/// How long the whole test is expected to take, from its plan, before anything runs: each
/// cell's warm-up and run in seconds of its trace or load model. Progress weighs every part of
/// the matrix by it, so the bar moves with the test rather than with one cell or one user.
public struct TestEstimate: Sendable, Equatable {
    /// One cell of the matrix: the `--warmup-seconds` warm-up before it (0: none), then its run.
    struct Cell: Sendable, Equatable {
        /// The cell's name (`RunCell.name`): a budget's later rounds run the same cells again.
        var name: String
        var warmUpSeconds: Double
        var runSeconds: Double
        var seconds: Double { warmUpSeconds + runSeconds }
    }

    var cells: [Cell]
    /// Every time is known in advance (a closed load model's duration, no warm-up); otherwise a
    /// trace's settle, other users' traces or an open model's last sessions make it "about".
    var exact: Bool
    /// More cells may follow the plan's (a `--budget`'s later rounds, decided as it goes).
    var open: Bool

    init(cells: [Cell], exact: Bool, open: Bool = false) {
        self.cells = cells
        self.exact = exact
        self.open = open
    }

    /// `traceSeconds`: the length of the trace every user scrolls (each user's own is as long,
    /// give or take its fling's ending).
    init(plan: BenchmarkPlan, traceSeconds: Double) {
        var exact = true
        cells = plan.cells.map { cell in
            let run = Self.runSeconds(plan.settings(for: cell), traceSeconds: traceSeconds)
            exact = exact && run.exact
            // Only a measured run is warmed up (`Benchmark.warmUp`): the first seconds of its trace.
            guard cell.repetition > 0 && plan.warmupSeconds > 0 else { return Cell(name: cell.name, warmUpSeconds: 0, runSeconds: run.seconds) }
            exact = false
            return Cell(name: cell.name, warmUpSeconds: min(plan.warmupSeconds, traceSeconds), runSeconds: run.seconds)
        }
        self.exact = exact
        open = plan.budget != nil
    }

    /// One run's seconds: a closed load model lasts its duration exactly (sessions under way are
    /// cut at its end); an open model's last users still finish their session; a user without
    /// one scrolls its trace, then waits up to `--settle-seconds` for the screen to settle.
    static func runSeconds(_ settings: RunSettings, traceSeconds: Double) -> (seconds: Double, exact: Bool) {
        switch settings.load {
        case .duration, .stages: return (settings.load!.seconds, true)
        case .arrivalRate: return (settings.load!.seconds + traceSeconds, false)
        case nil: return (traceSeconds, false)
        }
    }

    /// The cell a `--budget` round adds: as long as the plan's last run of the same cell.
    mutating func add(_ cell: RunCell) {
        cells.append(cells.last { $0.name == cell.name } ?? cells.last ?? Cell(name: cell.name, warmUpSeconds: 0, runSeconds: 0))
    }

    /// The whole test's planned seconds.
    var seconds: Double { cells.reduce(0) { $0 + $1.seconds } }
}
