/// One flag of `imgbench run`, declared once: its name, help, value, range, where its value lands,
/// how the plan says it back, and whether a list of it is a dimension of the matrix. Parsing,
/// `--help`, shell completion, `RunArguments` and the recorded plan all derive from the list of
/// them, `RunFlag.catalog` (as `Metric.catalog` does for metrics).
public struct RunFlag: Sendable, CustomStringConvertible {
    /// How the flag reads its value.
    enum Kind: Sendable, Equatable {
        /// `--rows 5000` or `--rows=5000`; given twice, the later one wins (the gate relies on it).
        case option
        /// `--progressive`: no value.
        case flag
        /// `--threshold EXPR`, as many times as wanted: every occurrence counts.
        case repeatable
    }

    /// What a shell offers after the flag.
    enum Completion: Sendable, Equatable {
        case none
        case values([String])
        case file(extensions: [String])
        case directory
    }

    /// Where one flag's value goes: the plan, and what `imgbench run` itself needs beside it.
    public struct Target: Sendable {
        public var plan: BenchmarkPlan
        public var output = RunOutput()
        /// Every flag's text as given, for the rules that join flags (`--source` refuses `--network`).
        let options: RunOptions
    }

    typealias Apply = @Sendable (_ text: String?, _ target: inout Target) throws(PlanError) -> Void

    /// Without the dashes: `rows`, `memory-cache-mb`.
    let name: String
    let kind: Kind
    /// `--rows <rows>`: the name of the value in help.
    let valueName: String
    let help: String
    let group: RunFlagGroup
    /// `(1 to 1000000)`: every number a user types has one (`FlagRanges`).
    let range: String?
    /// The value as help shows it when the flag is absent; nil when absence means something of its own.
    let defaultText: String?
    let completion: Completion
    /// For an option that also reads as a flag: the value of a bare `--coalesce`, and of `--no-coalesce`.
    let bare: String?
    let inverted: String?
    /// Sets the flag's value (its text, or nil when absent) on the target, checking it.
    let apply: Apply
    /// The plan's value of this flag as words (`["--rows", "5000"]`), or none where it is left unsaid.
    let words: @Sendable (BenchmarkPlan) -> [String]
    /// Set when a list of two or more values is a dimension of the matrix.
    let dimension: Dimension?

    init(_ name: String, _ kind: Kind = .option, value: String? = nil, group: RunFlagGroup, help: String, range: String? = nil,
         default defaultText: String? = nil, completion: Completion = .none, bare: String? = nil, inverted: String? = nil,
         dimension: Dimension? = nil, apply: @escaping Apply, words: @escaping @Sendable (BenchmarkPlan) -> [String]) {
        self.name = name
        self.kind = kind
        self.valueName = value ?? name
        self.group = group
        self.help = help
        self.range = range
        self.defaultText = defaultText
        self.completion = completion
        self.bare = bare
        self.inverted = inverted
        self.dimension = dimension
        self.apply = apply
        self.words = words
    }

    /// `--rows`.
    var flag: String { "--" + name }
    public var description: String { flag }

    /// How a flag varies as a dimension of the matrix: its items, their place in `RunSettings`, and
    /// how a cell's name and summary.csv show them.
    struct Dimension: Sendable {
        /// summary.csv's column (and requests.csv's, histograms.json's key): `cancel`, `memory_cache_mb`.
        let column: String
        /// A cell's name shows `label=value` (`memory-cache=16MB` with `unit`).
        let label: String
        let unit: String
        /// One item, checked, in its canonical form (`010` reads as `10`).
        let canonical: @Sendable (String) throws(PlanError) -> String
        let apply: @Sendable (String, inout RunSettings) -> Void
        let value: @Sendable (RunSettings) -> String
        /// A larger value asks for more (memory, connections, work ahead of need): of two values
        /// the verdict cannot tell apart, the smaller is the answer (`SettingAxis`).
        var asksMoreWhenLarger = false
    }
}

/// The groups `imgbench run --help` shows its flags in, in that order.
enum RunFlagGroup: String, Sendable, CaseIterable {
    case workload = "The feed and its scrolling"
    case pipeline = "The pipeline: strategies, caches and policies"
    case network = "The network and the server"
    case load = "Load: many users, many machines"
    case measurement = "Measurement"
    case output = "Output"
    case testing = "Testing aids"
}

/// What `imgbench run` needs beside the plan: where and how it writes, and the limits it checks.
public struct RunOutput: Sendable {
    public var directory: String?
    public var quiet = false
    public var force = false
    public var json = false
    public var thresholds: [Threshold] = []
    /// Keep the embedded server's generated images between starts (`--no-corpus-cache`: no).
    public var corpusCache = true
    /// `--metrics-address`: where the live metrics are served during the run (nil: not at all).
    public var metricsAddress: MetricsAddress?

    init() {}
}
