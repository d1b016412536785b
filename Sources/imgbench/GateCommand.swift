import ArgumentParser
import Foundation
import ImageBench

/// `imgbench gate`: checks a result set against a baseline; exit 1 on a real regression.
struct GateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Fail (exit 1) when a metric regresses beyond its threshold and beyond run-to-run noise.",
        discussion: """
        What is compared: with --current DIR, that results directory against the baseline; by default, a fresh \
        run of the configuration the baseline recorded; with --ab, that configuration run by two sides (binaries \
        or extra arguments) interleaved A B A B in this job, and the baseline's own numbers are not used.

        Thresholds: 'display_p95_ms < 250' (absolute limit), 'display_p95_ms +10%' (may get 10% worse), \
        'memory_hit_rate -0.02' (may get 0.02 worse). A check fails when the median change exceeds its threshold \
        and a two-sided Mann-Whitney U test finds the repeats different (at alpha 0.05 that needs at least 4 runs a side; \
        use 5 or more).

        A baseline run in virtual time (--time virtual) is compared exactly: no noise, so each threshold is judged on \
        the values as they are, and every count (requests, bytes, hits, cancellations, errors) must equal the \
        baseline's. It catches changes of the policies' and the pipeline's logic, not of real costs.

        Exit codes: 0 pass, 1 regression, 2 could not run, 64 usage error.
        """)

    @Option(help: "The baseline results directory (e.g. Reports/baseline).")
    var baseline: String

    @Option(help: "A results directory to check instead of running the baseline's configuration again.")
    var current: String?

    @Flag(help: "Run baseline (A) and candidate (B) interleaved in this job, A B A B …, and compare them.")
    var ab = false

    @Option(help: "A/B rounds per side (default: the baseline's repeat count, at least 5).")
    var rounds: Int?

    @Option(name: .customLong("baseline-binary"), help: "With --ab: the imgbench executable for side A (default: this one).")
    var baselineBinary: String?

    @Option(name: .customLong("candidate-binary"), help: "The imgbench executable for the fresh run or side B (default: this one).")
    var candidateBinary: String?

    @Option(name: .customLong("baseline-args"), parsing: .unconditional, help: "With --ab: run arguments added for side A, e.g. \"--concurrency 8\".")
    var baselineArgs: String?

    @Option(name: .customLong("candidate-args"), parsing: .unconditional, help: "Run arguments added for the fresh run or side B, e.g. \"--source URL\".")
    var candidateArgs: String?

    @Option(help: "Testing aid: slow or break the candidate on purpose, as imgbench run --inject does (e.g. 'latency=+25%', 'cancel=running-only').")
    var inject: String?

    @Flag(help: "Run the failing cells once more; fail only if they regress again.")
    var confirm = false

    @Flag(name: .customLong("update-baseline"), help: "Run the baseline's recorded configuration again and replace its results.")
    var updateBaseline = false

    @Option(name: .customLong("threshold"), help: "A threshold; repeat the flag for several.")
    var thresholds: [String] = []

    @Option(name: .customLong("thresholds"), help: "A file of thresholds, one per line (# starts a comment).")
    var thresholdsFile: String?

    @Option(help: "Significance level of the Mann-Whitney test.")
    var alpha = 0.05

    @Flag(name: .customLong("allow-config-change"),
          help: "Compare even when the two sides ran different configurations (the differences are printed).")
    var allowConfigChange = false

    @Option(help: "Where to write gate.md, gate.json and fresh runs (default: imgbench-results/gate-<timestamp>; never into --current).")
    var out: String?

    func validate() throws {
        if updateBaseline {
            let others = [("--current", current != nil), ("--ab", ab), ("--confirm", confirm), ("--inject", inject != nil),
                          ("--threshold", !thresholds.isEmpty), ("--thresholds", thresholdsFile != nil)]
            if let (flag, _) = others.first(where: \.1) { throw ValidationError("--update-baseline cannot be combined with \(flag)") }
            return
        }
        _ = try parsedThresholds()
        guard alpha > 0 && alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1 (got \(alpha))") }
        if current != nil {
            let fresh = [("--ab", ab), ("--confirm", confirm), ("--inject", inject != nil), ("--candidate-binary", candidateBinary != nil),
                         ("--candidate-args", candidateArgs != nil), ("--rounds", rounds != nil)]
            if let (flag, _) = fresh.first(where: \.1) { throw ValidationError("\(flag) needs a fresh run: drop --current") }
        }
        if !ab {
            let abOnly = [("--rounds", rounds != nil), ("--baseline-binary", baselineBinary != nil), ("--baseline-args", baselineArgs != nil)]
            if let (flag, _) = abOnly.first(where: \.1) { throw ValidationError("\(flag) needs --ab") }
        }
        if let rounds, rounds < 1 { throw ValidationError("--rounds must be at least 1 (got \(rounds))") }
        _ = try sides()
    }

    func run() throws {
        let announce: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("imgbench gate: \($0)\n".utf8)) }
        if updateBaseline { return try refreshBaseline(announce: announce) }
        let rules = try parsedThresholds()
        let (a, b) = try sides()
        // Never into --current: it is a results directory being judged (perhaps a committed baseline).
        let workspace = URL(fileURLWithPath: out ?? "imgbench-results/gate-\(Timestamp.now())")
        // Read once: the like-with-like check and the fresh runs both need it.
        let basePlan = try current == nil ? RecordedPlan.read(baseline) : nil
        // Two virtual sides compare exactly; sides whose plans could not be read never do.
        let exact = try checkLikeWithLike(base: basePlan, a: a, b: b)
        if exact && confirm { announce("--confirm has nothing to do: virtual runs repeat exactly") }
        let evaluation = try CommandFailure.catching { () throws -> GateEvaluation in
            if let current {
                return GateEvaluation(baseline: try ResultsDirectory(path: baseline),
                                      current: try ResultsDirectory(path: current), thresholds: rules, alpha: alpha, exact: exact)
            }
            let runner = GateRunner(plan: basePlan!, workspace: workspace, announce: announce)
            let base = ab ? nil : try ResultsDirectory(path: baseline)
            // One evaluation of fresh numbers: A/B rounds, or a run of side B against the baseline's own.
            let evaluate = { (prefix: String, cells: GateRunner.Cells?) throws -> GateEvaluation in
                if let base {
                    return GateEvaluation(baseline: base, current: try runner.run(b, name: prefix, cells: cells), thresholds: rules,
                                          alpha: alpha, exact: exact)
                }
                let both = try runner.interleave(a: a, b: b, rounds: self.rounds ?? max(5, runner.plan.repeats), prefix: prefix, cells: cells)
                return GateEvaluation(baseline: both.a, current: both.b, thresholds: rules, alpha: alpha, exact: exact)
            }
            let first = try evaluate(ab ? "ab" : "current", nil)
            // A virtual run again gives the same numbers: nothing to confirm.
            guard confirm && first.regressed && !exact else { return first }
            return first.confirmed(by: try evaluate("confirm", first.regressedCells))
        }
        guard !evaluation.checks.isEmpty else {
            throw CommandFailure("no threshold applies to a strategy × concurrency cell both sides have")
        }
        guard evaluation.unevaluated.isEmpty else {
            throw CommandFailure("cannot check " + evaluation.unevaluated.joined(separator: "; ")
                + " (record the baseline again with this imgbench, or drop the threshold)")
        }
        print(evaluation.text)
        try CommandFailure.catching("cannot write gate.md/gate.json to \(workspace.path)") {
            try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
            try evaluation.markdown.write(to: workspace.appendingPathComponent("gate.md"), atomically: true, encoding: .utf8)
            try evaluation.json().write(to: workspace.appendingPathComponent("gate.json"), atomically: true, encoding: .utf8)
        }
        print("\nGate report: \(workspace.path)/gate.md, gate.json")
        if evaluation.regressed { throw ExitCode(1) }
    }

    /// `--update-baseline`: the recorded configuration run again, its reports replacing the
    /// baseline's (other files there, such as a README, are kept).
    private func refreshBaseline(announce: @escaping @Sendable (String) -> Void) throws {
        let directory = URL(fileURLWithPath: baseline)
        let staging = ".imgbench-update"
        let plan = try CommandFailure.catching("cannot update the baseline \(baseline)") {
            try RecordedPlan.read(directory: baseline, legacy: RunCommand.plan(arguments:))
        }
        let fresh = try CommandFailure.catching("cannot update the baseline \(baseline)") { () throws -> ResultsDirectory in
            let runner = GateRunner(plan: plan, workspace: directory, announce: announce)
            let fresh = try runner.run(GateRunner.Side(), name: staging)
            for name in Reports.all.map(\.fileName) {
                let target = directory.appendingPathComponent(name)
                _ = try? FileManager.default.removeItem(at: target)
                try FileManager.default.moveItem(at: URL(fileURLWithPath: fresh.path).appendingPathComponent(name), to: target)
            }
            try FileManager.default.removeItem(at: directory.appendingPathComponent(staging))
            return fresh
        }
        print("Baseline updated: \(baseline) (\(fresh.runs.count) runs of \((["imgbench", "run"] + RunArguments(plan).words).map(ShellWords.quoted).joined(separator: " ")))")
    }

    /// Baseline and candidate must have run the same configuration (but for the matrix and an
    /// injected slowdown): else exit 2 naming the differences, unless --allow-config-change.
    /// The candidate's plan is the recorded one (--current), or what the side's extra arguments
    /// make of the baseline's; in A/B mode both sides are compared with each other.
    /// True when both sides run in virtual time (what runs, after the sides' own flags).
    private func checkLikeWithLike(base basePlan: BenchmarkPlan?, a: GateRunner.Side, b: GateRunner.Side) throws -> Bool {
        let differences: [String]
        let plans: (BenchmarkPlan, BenchmarkPlan)
        do {
            let base = try basePlan ?? RecordedPlan.read(baseline)
            let side = { (side: GateRunner.Side) in try RunCommand.plan(arguments: RunArguments(base).words + side.extraArguments) }
            plans = try current.map { (base, try RecordedPlan.read($0)) } ?? ((ab ? side(a) : base), try side(b))
            differences = plans.0.configurationDifferences(from: plans.1)
        } catch {
            guard allowConfigChange else {
                throw CommandFailure("cannot check that both sides ran the same configuration (\(CommandFailure.reason(error))); "
                                     + "pass --allow-config-change to compare anyway")
            }
            print("imgbench gate: configurations not checked: \(CommandFailure.reason(error))")
            return false
        }
        try CommandFailure.requireSameTime(plans.0, plans.1, of: "sides")
        try CommandFailure.requireSameConfiguration(differences, of: "sides", allowed: allowConfigChange)
        return plans.0.settings.isVirtual && plans.1.settings.isVirtual
    }

    /// Side A (the baseline's, in A/B mode) and side B (the candidate: the fresh run or side B).
    private func sides() throws -> (a: GateRunner.Side, b: GateRunner.Side) {
        func process(_ path: String?, flag: String) throws -> ImgbenchProcess {
            guard let path else { return .current }
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw ValidationError("\(flag): \(path) is not an executable file")
            }
            return ImgbenchProcess(executable: URL(fileURLWithPath: path).standardizedFileURL.path)
        }
        func words(_ text: String?, flag: String) throws -> [String] {
            do {
                return try ShellWords.split(text ?? "")
            } catch {
                throw ValidationError("\(flag): \(error.description)")
            }
        }
        var candidateExtra = try words(candidateArgs, flag: "--candidate-args")
        if let inject {
            do {
                _ = try FaultInjection(parsing: inject)
            } catch {
                throw ValidationError(error.description)
            }
            candidateExtra += ["--inject", inject]
        }
        return (GateRunner.Side(process: try process(baselineBinary, flag: "--baseline-binary"),
                                extraArguments: try words(baselineArgs, flag: "--baseline-args")),
                GateRunner.Side(process: try process(candidateBinary, flag: "--candidate-binary"), extraArguments: candidateExtra))
    }

    private func parsedThresholds() throws -> [Threshold] {
        var texts = thresholds
        if let thresholdsFile {
            guard let content = try? String(contentsOfFile: thresholdsFile, encoding: .utf8) else {
                throw ValidationError("--thresholds: cannot read \(thresholdsFile)")
            }
            for (number, line) in content.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let text = String(line.prefix { $0 != "#" }).trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty else { continue }
                do {
                    _ = try Threshold(parsing: text)
                } catch {
                    throw ValidationError("\(thresholdsFile):\(number + 1): \(error.description)")
                }
                texts.append(text)
            }
        }
        guard !texts.isEmpty else { throw ValidationError("give at least one --threshold (or --thresholds FILE)") }
        var rules: [Threshold] = []
        for text in texts {
            do {
                rules.append(try Threshold(parsing: text))
            } catch {
                throw ValidationError(error.description)
            }
            if rules.last!.isPerSecond { throw ValidationError("'\(text)': a per-second limit is imgbench run --threshold's; the gate compares whole runs") }
        }
        return rules
    }
}
