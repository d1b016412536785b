import Foundation

/// How `imgbench gate` gets fresh numbers: a baseline's recorded configuration run again by an
/// `imgbench` executable, either once (every repeat in one process) or A/B interleaved.
public struct GateRunner: Sendable {
    /// One side of a comparison: the executable that runs, and arguments appended to the
    /// recorded ones (later flags win, so `--inject …` or `--source …` changes only this side).
    public struct Side: Sendable {
        var process: ImgbenchProcess
        public var extraArguments: [String]

        public init(process: ImgbenchProcess = .current, extraArguments: [String] = []) {
            self.process = process
            self.extraArguments = extraArguments
        }
    }

    /// Cells to run (their strategies and limits); nil runs the whole recorded matrix.
    public typealias Cells = [ResultCell]

    /// The baseline's plan.
    public let plan: BenchmarkPlan
    /// Where each run's results directory goes.
    let workspace: URL
    /// Told before each child run starts, for progress lines.
    let announce: @Sendable (String) -> Void

    public init(plan: BenchmarkPlan, workspace: URL, announce: @escaping @Sendable (String) -> Void) {
        self.plan = plan
        self.workspace = workspace
        self.announce = announce
    }

    /// The baseline's plan with `repeats` and, when given, only the strategies and limits of `cells`.
    func plan(repeats: Int, cells: Cells?) -> BenchmarkPlan {
        var plan = self.plan
        plan.repeats = repeats
        if let cells {
            plan.strategies = Self.unique(cells.compactMap(\.strategy.kind))
            plan.concurrencies = Self.unique(cells.map(\.concurrency))
        }
        return plan
    }

    /// Every recorded repeat in one process, into `workspace/name`.
    public func run(_ side: Side, name: String, cells: Cells? = nil) throws(ImgbenchProcess.Failure) -> ResultsDirectory {
        announce("\(name): \(plan.repeats) repeat(s) of the baseline's configuration")
        return try side.process.run(plan(repeats: plan.repeats, cells: cells), extra: side.extraArguments,
                                    into: workspace.appendingPathComponent(name)) { announce("\(name) \($0)") }
    }

    /// A B A B …: `rounds` rounds, one repeat per process, so drift on the machine (another job
    /// starting, the CPU heating up) lands on both sides alike. Each side's rounds are joined
    /// into `workspace/prefix-a` and `workspace/prefix-b`.
    public func interleave(a: Side, b: Side, rounds: Int, prefix: String = "ab", cells: Cells? = nil) throws
        -> (a: ResultsDirectory, b: ResultsDirectory) {
        var runs: [String: [ResultsDirectory]] = [:]
        for round in 1...rounds {
            for (label, side) in [("a", a), ("b", b)] {
                announce("\(prefix) round \(round)/\(rounds): \(label.uppercased())")
                let directory = workspace.appendingPathComponent("\(prefix)-\(label)/round-\(round)")
                runs[label, default: []].append(try side.process.run(plan(repeats: 1, cells: cells), extra: side.extraArguments,
                                                                     into: directory) { announce("  \($0)") })
            }
        }
        return (try ResultsDirectory.combining(runs["a"] ?? [], into: workspace.appendingPathComponent("\(prefix)-a")),
                try ResultsDirectory.combining(runs["b"] ?? [], into: workspace.appendingPathComponent("\(prefix)-b")))
    }

    static func unique<Value: Hashable>(_ values: [Value]) -> [Value] {
        var seen = Set<Value>()
        return values.filter { seen.insert($0).inserted }
    }
}
