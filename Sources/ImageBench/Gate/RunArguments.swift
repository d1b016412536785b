import Foundation

/// A plan as `imgbench run` arguments: the one place outside the command-line target that writes
/// imgbench's flags. The gate runs a baseline's plan again through it, in a child process of this
/// or another imgbench build (A/B), so the flags are the stable interface between versions.
public struct RunArguments: Sendable, Equatable {
    /// The arguments after `imgbench run`, every setting spelled out (defaults too, so a build
    /// with other defaults runs the same benchmark).
    public let words: [String]

    public init(_ plan: BenchmarkPlan) {
        // Each flag says its own value (`RunFlag.words`), in the catalog's order.
        words = RunFlag.catalog.flatMap { $0.words(plan) }
    }

    /// `--formats`, said only when it is not the mix (which builds before formats ran), so such a
    /// build can still run the plan.
    static func formatFlags(_ plan: BenchmarkPlan) -> [String] {
        plan.formats == [.mixed] ? [] : ["--formats", plan.formats.map(\.description).joined(separator: ",")]
    }

    /// The whole child invocation: `run`, the plan, then `extra` (later flags win, so a side's
    /// own `--inject` or `--source` changes only that side), then the plan's matrix again (the
    /// repeats and cells the gate chose win over a side's), into `directory`.
    static func invocation(_ plan: BenchmarkPlan, extra: [String] = [], into directory: URL) -> [String] {
        let matrix = ["--repeat", String(plan.repeats), "--strategies", plan.strategies.map(\.rawValue).joined(separator: ","),
                      "--concurrency", plan.concurrencies.map(String.init).joined(separator: ",")] + formatFlags(plan)
        // --force: the gate owns its workspace, and a re-run of the gate writes into it again.
        // Not --quiet: the child's finished runs are the gate's progress (`ImgbenchProcess.run`).
        return ["run"] + RunArguments(plan).words + extra + matrix + ["--force", "--out", directory.path]
    }
}
