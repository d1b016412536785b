import Foundation
import Testing
@testable import ImageBench

@Suite("The plan: one configuration value")
struct PlanTests {
    /// A plan that differs from the defaults almost everywhere (not the scroll: fling is the only
    /// profile short enough on 40 rows).
    static func unusualPlan() throws -> BenchmarkPlan {
        var options = RunOptions()
        options["rows"] = "40"
        options["images"] = "12"
        options["strategies"] = "threads,gcd"
        options["concurrency"] = "2,3"
        options["transport"] = "multi"
        options["network"] = "latency=5ms,jitter=1ms,bandwidth=50MB/s"
        options["fps"] = "120"
        options["seed"] = "7"
        options["filter"] = "grayscale"
        options["cancel"] = "none"
        options["coalesce"] = "off"
        options["memory-cache-mb"] = "32"
        options["prefetch"] = "2"
        options["decode-concurrency"] = "2"
        options["filter-concurrency"] = "1"
        options["progressive"] = "true"
        options["resume"] = "true"
        options["timeout"] = "2.5"
        options["stall-timeout"] = "2"
        options["retries"] = "1"
        options["faults"] = "error=1%"
        options["max-pixels"] = "40000000"
        options["max-decode-mb"] = "100"
        options["max-bytes"] = "9000000"
        options["clients"] = "2"
        options["inject"] = "decode=+1ms"
        options["warmup-seconds"] = "0.25"
        return try options.plan()
    }

    @Test("options that break a rule name the flag")
    func rules() {
        func reason(_ change: (inout RunOptions) -> Void) -> String {
            var options = RunOptions()
            change(&options)
            do {
                _ = try options.plan()
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(reason { $0["rows"] = "0" } == "--rows must be between 1 and 1000000 (got 0)")
        #expect(reason { $0["fps"] = "500" }.hasPrefix("--fps must be between 1 and 240"))
        #expect(reason { $0["clients"] = "2"; $0["disk-cache"] = "/tmp/cache" }.hasPrefix("--disk-cache with --clients"))
        #expect(reason { $0["clients"] = "2"; $0["shard"] = "1/3" }.contains("3 shards need at least 3 --clients"))
        #expect(reason { $0["shard"] = "0/2" }.hasPrefix("--shard: '0/2'"))
        #expect(reason { $0["source"] = "http://127.0.0.1:9/{id}.jpg"; $0["faults"] = "error=1%" }.hasPrefix("--faults shapes the embedded server"))
        #expect(reason { $0["network"] = "nonsense" }.hasPrefix("--network: unknown network profile 'nonsense'"))
        #expect(reason { $0["strategies"] = "gcd,bogus" }.hasPrefix("--strategies: unknown value 'bogus'"))
        #expect(reason { $0["concurrency"] = "5,0" } == "--concurrency must be between 1 and 1000 (got 0)")
        #expect(reason { $0["concurrency"] = "5,x" } == "--concurrency: 'x' is not a whole number")
        // Lists: an empty item or a repeated value is refused, never mended.
        #expect(reason { $0["concurrency"] = "1,,3" } == "--concurrency '1,,3': item 2 is empty")
        #expect(reason { $0["concurrency"] = "1,3," } == "--concurrency '1,3,': item 3 is empty")
        #expect(reason { $0["strategies"] = "threads,threads" } == "--strategies 'threads,threads': 'threads' is given twice")
        #expect(reason { $0["concurrency"] = "5,05" } == "--concurrency names a limit twice")
        #expect(reason { $0["warmup-seconds"] = "61" } == "--warmup-seconds must be between 0 and 60 (got 61)")
        #expect(reason { $0["decode-concurrency"] = "0" } == "--decode-concurrency must be between 1 and 64 (got 0)")
        #expect(reason { $0["filter-concurrency"] = "65" } == "--filter-concurrency must be between 1 and 64 (got 65)")
        #expect(reason { $0["warmup-seconds"] = "-1" } == "--warmup-seconds must be between 0 and 60 (got -1)")
        #expect(reason { $0["warmup-seconds"] = "nan" }.hasPrefix("--warmup-seconds must be between 0 and 60"))
        #expect(reason { $0["strategies"] = "events" }.hasPrefix("--strategies events needs --transport multi"))
        #expect(reason { $0["strategies"] = "events"; $0["transport"] = "multi" } == "accepted")
        // `all` is every strategy the transport can run.
        #expect((try? { var o = RunOptions(); o["strategies"] = "all"; return try o.plan().strategies }()) == StrategyKind.allCases.filter { $0 != .events })
        #expect((try? { var o = RunOptions(); o["strategies"] = "all"; o["transport"] = "multi"; return try o.plan().strategies }()) == StrategyKind.allCases)
        // `all` says what it leaves out; with multi it leaves out nothing.
        #expect({ var o = RunOptions(); o["strategies"] = "all"; return o.notes }() == ["--strategies all: events left out (it needs --transport multi: it has no thread to block on a download)"])
        #expect({ var o = RunOptions(); o["strategies"] = "all"; o["transport"] = "multi"; return o.notes }().isEmpty)
        #expect(reason { _ in } == "accepted")
    }

    @Test("a plan survives JSON, and a hand-edited one is checked as a command line is")
    func json() throws {
        let plan = try Self.unusualPlan()
        #expect(try BenchmarkPlan(jsonObject: plan.jsonObject()) == plan)
        var object = try #require(try plan.jsonObject() as? [String: Any])
        // imgbench 0.2 wrote no warmupSeconds: it played no warm-up.
        var older = object
        older.removeValue(forKey: "warmupSeconds")
        #expect(try BenchmarkPlan(jsonObject: older).warmupSeconds == 0 && plan.warmupSeconds == 0.25)
        var settings = try #require(object["settings"] as? [String: Any])
        settings["fps"] = 1_000
        object["settings"] = settings
        #expect(throws: PlanError("--fps must be between 1 and 240 (got 1000)")) { try BenchmarkPlan(jsonObject: object) }
        settings["fps"] = 60
        settings["faults"] = "explode=5%"
        object["settings"] = settings
        #expect(throws: PlanError.self) { try BenchmarkPlan(jsonObject: object) }
        settings.removeValue(forKey: "faults")
        object["settings"] = settings
        do {
            _ = try BenchmarkPlan(jsonObject: object)
            Issue.record("a plan without faults was accepted")
        } catch {
            #expect(error.description.contains("settings.faults"), "\(error)")
        }
    }

    @Test("a gate side's extra arguments come after the plan but before the matrix the gate chose")
    func invocationOrder() throws {
        var plan = try RunOptions().plan()
        plan.repeats = 5
        let words = RunArguments.invocation(plan, extra: ["--repeat", "1", "--source", "http://127.0.0.1:9/{id}.jpg"],
                                            into: URL(fileURLWithPath: "/tmp/out"))
        // The default network is left unsaid, so the side's --source is not refused.
        #expect(!words.contains("--network"))
        let lastRepeat = try #require(words.lastIndex(of: "--repeat"))
        #expect(words[lastRepeat + 1] == "5" && lastRepeat > words.firstIndex(of: "--source")!)
        var shaped = plan
        shaped.settings.network = try NetworkProfile(parsing: "lte")
        #expect(RunArguments(shaped).words.contains("lte"))
    }

    @Test("numbers survive the trip: sub-second timeouts, the largest seed, huge sizes refused by name")
    func numbersRoundTrip() throws {
        var options = RunOptions()
        options["timeout"] = "1.001"
        options["seed"] = String(UInt64.max)
        let plan = try options.plan()
        #expect(plan.settings.fetchLimits.timeoutMilliseconds == 1_001)
        #expect(RunArguments(plan).words.contains("1.001"))
        let directory = try Fixtures.temporaryDirectory("seed")
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = BenchmarkResults(plan: plan, results: [], corpusImages: 0, corpusBytes: 0, serverURL: "", traceSeconds: 0,
                                       startedAt: Date(), environment: RunEnvironment.capture())
        try SummaryJSON().write(results, to: directory)
        #expect(try RecordedPlan.read(directory: directory.path) == plan)
        options["memory-cache-mb"] = "-9999999999999"
        #expect(throws: PlanError("--memory-cache-mb must be between 0 and 65536 (got -9999999999999)")) { try options.plan() }
    }

    @Test("a megabyte is 10^6 bytes wherever a user types or reads one")
    func oneMegabyte() throws {
        var options = RunOptions()
        options["memory-cache-mb"] = "10"
        options["disk-cache-mb"] = "3"
        let settings = try options.plan().settings
        #expect(settings.memoryCacheBytes == 10_000_000 && settings.diskCacheBytes == 3_000_000)
        #expect(MemoryCache.defaultCostLimit == 64_000_000 && RunFlag.named("memory-cache-mb")?.defaultText == "64")
        #expect(Format.megabytes(2_500_000.0) == "2.5" && Format.size(67_100_000) == "67.1 MB" && Format.size(64_000_000_000) == "64.0 GB")
        #expect(try NetworkProfile(parsing: "bandwidth=2MB/s").bandwidthBytesPerSecond == 2_000_000)
        let words = RunArguments(try options.plan()).words
        #expect(words.contains("--memory-cache-mb") && words[words.firstIndex(of: "--memory-cache-mb")! + 1] == "10")
    }

    @Test("differences name the fields that changed")
    func differences() throws {
        let plan = try Self.unusualPlan()
        var other = plan
        other.settings.rows = 1_000
        other.concurrencies = [5]
        #expect(plan.differences(from: plan).isEmpty)
        #expect(plan.differences(from: other) == ["concurrencies: [2,3] → [5]", "settings.rows: 40 → 1000"])
    }
}

extension ChildProcessRuns {
    @Suite("The plan through the binary")
    struct PlanThroughTheBinaryTests {
        @Test("RunArguments spells a plan so that imgbench run records exactly that plan")
        func argumentsRoundTrip() async throws {
            let plan = try PlanTests.unusualPlan()
            let directory = try Fixtures.temporaryDirectory("plan-round-trip")
            defer { try? FileManager.default.removeItem(at: directory) }
            let arguments = RunArguments.invocation(plan, into: directory.appendingPathComponent("results"))
            let run = try await onOwnThread { try Fixtures.imgbench(arguments) }
            try #require(run.status == 0, "\(run.output)")
            let recorded = try RecordedPlan.read(directory: directory.appendingPathComponent("results").path)
            #expect(recorded == plan, "\(plan.differences(from: recorded))")
            // The same words for the recorded plan: nothing lost on the way.
            #expect(RunArguments(recorded) == RunArguments(plan))
        }

        @Test("a directory of imgbench 0.1 (recorded arguments, no plan) still gates: its arguments are parsed as flags")
        func legacyDirectory() async throws {
            let directory = try Fixtures.temporaryDirectory("legacy")
            defer { try? FileManager.default.removeItem(at: directory) }
            let legacy = directory.appendingPathComponent("legacy")
            let scenario = ["--rows", "40", "--images", "12", "--network", "loopback", "--strategies", "threads", "--concurrency", "2"]
            try await onOwnThread {
                let made = try Fixtures.imgbench(scenario + ["--quiet", "--out", legacy.path])
                try #require(made.status == 0, "\(made.output)")
                // What 0.1 wrote: the configuration with its arguments, no plan.
                let file = legacy.appendingPathComponent("summary.json")
                var document = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
                document.removeValue(forKey: "plan")
                document["configuration"] = ["arguments": scenario]
                try JSONSerialization.data(withJSONObject: document).write(to: file)
                let gate = try Fixtures.imgbench(["gate", "--baseline", legacy.path, "--threshold", "errors <= 0",
                                                  "--out", directory.appendingPathComponent("gate").path])
                #expect(gate.status == 0, "\(gate.output)")
                let fresh = try RecordedPlan.read(directory: directory.appendingPathComponent("gate/current").path)
                #expect(fresh.settings.rows == 40 && fresh.settings.imageCount == 12 && fresh.settings.network.name == "loopback"
                        && fresh.strategies == [.threads] && fresh.concurrencies == [2])
                // 0.1 played no warm-up, and neither does the run that repeats it (today's default would).
                #expect(fresh.warmupSeconds == 0)
            }
        }

        @Test("a results directory without a plan fails with one line naming it")
        func missingPlan() async throws {
            let directory = try Fixtures.temporaryDirectory("no-plan")
            defer { try? FileManager.default.removeItem(at: directory) }
            try #"{"configuration": {"rows": 5}}"#.write(to: directory.appendingPathComponent("summary.json"), atomically: true, encoding: .utf8)
            #expect(throws: RecordedPlan.LoadError.self) { try RecordedPlan.read(directory: directory.path) }
            let report = try await onOwnThread { try Fixtures.imgbench(["report", directory.path]) }
            let lines = report.output.split(separator: "\n")
            #expect(report.status == 2 && lines.count == 1 && lines[0].hasPrefix("imgbench report: ") && lines[0].contains("records no plan"),
                    "\(report.output)")
        }
    }
}
