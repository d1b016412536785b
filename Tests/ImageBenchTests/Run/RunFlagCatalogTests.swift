import Foundation
import Testing
@testable import ImageBench

/// The run-flag catalog: every entry parses, lands in the plan and is said back the same; help
/// and completion list every entry; the settings that became dimensions make their cells.
@Suite("Run flag catalog")
struct RunFlagCatalogTests {
    /// A value other than the default for every flag, with what it needs beside it.
    static let unusual: [String: [String]] = [
        "rows": ["--rows", "40"], "images": ["--images", "12"], "feed": ["--feed", "sequential"],
        "source": ["--source", "http://127.0.0.1:9/{id}.jpg"], "seed": ["--seed", "7"], "scroll": ["--scroll", "browse"],
        "fps": ["--fps", "120"], "no-corpus-cache": ["--no-corpus-cache"], "strategies": ["--strategies", "threads,gcd"],
        "concurrency": ["--concurrency", "2,3"], "formats": ["--formats", "jpeg,avif"], "transport": ["--transport", "multi"],
        "filter": ["--filter", "grayscale"], "cancel": ["--cancel", "none"], "coalesce": ["--no-coalesce"], "prefetch": ["--prefetch", "2"],
        "decode-concurrency": ["--decode-concurrency", "2"], "filter-concurrency": ["--filter-concurrency", "1"],
        "progressive": ["--progressive"], "resume": ["--resume"], "memory-cache-mb": ["--memory-cache-mb", "32"],
        "disk-cache": ["--disk-cache", "/tmp/imgbench-catalog-cache"], "disk-cache-mb": ["--disk-cache-mb", "3"],
        "disk-read": ["--disk-read", "main"], "max-pixels": ["--max-pixels", "40000000"], "max-decode-mb": ["--max-decode-mb", "100"],
        "network": ["--network", "lte"], "faults": ["--faults", "error=1%"], "timeout": ["--timeout", "2.5"],
        "stall-timeout": ["--stall-timeout", "2"], "retries": ["--retries", "1"], "max-bytes": ["--max-bytes", "9000000"],
        "clients": ["--clients", "2"], "duration": ["--duration", "30s"], "stages": ["--stages", "5s:2,5s:0"],
        "arrival-rate": ["--arrival-rate", "2/s", "--duration", "10s"], "shard": ["--clients", "2", "--shard", "1/2"],
        "no-decode": ["--no-decode"], "repeat": ["--repeat", "3"], "warmup": ["--warmup", "1"], "warmup-seconds": ["--warmup-seconds", "0.5"], "budget": ["--budget", "90s"],
        "max-error-rate": ["--max-error-rate", "2.5%"], "rank-by": ["--rank-by", "rest-wait"], "time": ["--time", "virtual", "--no-decode"],
        "host-delay-ms": ["--host-delay-ms", "0.625", "--time", "virtual", "--no-decode"],
        "out": ["--out", "/tmp/somewhere"], "quiet": ["--quiet"], "force": ["--force"], "format": ["--format", "json"],
        "threshold": ["--threshold", "errors <= 0", "--threshold", "display_p95_ms < 100"], "inject": ["--inject", "decode=+1ms"],
        "metrics-address": ["--metrics-address", "[::1]:9464"],
        // Any readable file passes the plan's check (curl reads it as PEM at the first HTTPS request).
        "http": ["--http", "2"], "ca-file": ["--ca-file", "/etc/passwd"], "user-agent": ["--user-agent", "FeedApp/3.2 (iPhone; iOS 17.0)"], "tls": ["--tls"],
    ]

    /// Flags for `imgbench run` itself: they change the output, never the plan.
    static let outputOnly: Set = ["no-corpus-cache", "out", "quiet", "force", "format", "threshold", "metrics-address"]

    @Test("every flag's unusual value lands in the plan (or the output) and RunArguments says it back to the same plan")
    func roundTrip() throws {
        let defaults = try RunOptions().resolved()
        #expect(Set(Self.unusual.keys) == Set(RunFlag.catalog.map(\.name)), "a flag without a test value")
        for flag in RunFlag.catalog {
            let words = try #require(Self.unusual[flag.name])
            let target = try RunOptions(parsing: words).resolved()
            if Self.outputOnly.contains(flag.name) {
                #expect(target.plan == defaults.plan, "\(flag) changed the plan")
                continue
            }
            #expect(target.plan != defaults.plan, "\(flag) \(words) left the plan as it was")
            let said = RunArguments(target.plan).words
            let again = try RunOptions(parsing: said).plan()
            #expect(again == target.plan, "\(flag): \(target.plan.differences(from: again))")
            #expect(RunArguments(again) == RunArguments(target.plan))
        }
        let output = try RunOptions(parsing: Self.outputOnly.sorted().flatMap { Self.unusual[$0]! }).resolved().output
        #expect(output.directory == "/tmp/somewhere" && output.quiet && output.force && output.json && !output.corpusCache)
        #expect(output.thresholds.map(\.description) == ["errors <= 0", "display_p95_ms < 100"])
        #expect(output.metricsAddress == MetricsAddress(host: "::1", port: 9464))
    }

    @Test("the words: --name=value, switches and --no- inversions, the later value winning, one-line mistakes")
    func parsing() throws {
        #expect(try RunOptions(parsing: ["--rows=40", "--rows", "50"]).plan().settings.rows == 50)
        #expect(try RunOptions(parsing: ["--no-coalesce"]).plan().settings.coalesce == false)
        #expect(try RunOptions(parsing: ["--no-coalesce", "--coalesce"]).plan().settings.coalesce == true)
        #expect(try RunOptions(parsing: ["--coalesce", "--rows", "40"]).plan().settings.rows == 40)
        func refusal(_ words: [String]) -> String {
            do {
                _ = try RunOptions(parsing: words).plan()
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(refusal(["--rwos", "5"]) == "Unknown option '--rwos'. Did you mean '--rows'?")
        #expect(refusal(["--no-progressive"]) == "--progressive has no --no- form: leave it out to keep it off")
        #expect(refusal(["--bogus-thing"]) == "Unknown option '--bogus-thing'.")
        #expect(refusal(["--rows"]) == "Missing value for '--rows <rows>'")
        #expect(refusal(["--resume=yes"]) == "--resume takes no value (got '--resume=yes')")
        #expect(refusal(["5000"]) == "Unexpected argument '5000'")
        #expect(refusal(["--rows", "-1"]) == "--rows must be between 1 and 1000000 (got -1)")
        #expect(refusal(["--scroll", "fling,browse"]).hasPrefix("--scroll takes one profile"))
        #expect(refusal(["--network", "lte,3g"]).hasPrefix("--network takes one profile"))
        #expect(refusal(["--network", "latency=80ms,jitter=20ms"]) == "accepted")
    }

    @Test("help lists every flag in its group with its range and default; completion offers every spelling and value")
    func help() {
        let help = RunFlag.helpText().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for group in RunFlagGroup.allCases { #expect(help.contains(group.rawValue.uppercased() + ":")) }
        for flag in RunFlag.catalog {
            #expect(help.contains(flag.synopsis), "\(flag) not in help")
            if let range = flag.range { #expect(help.contains(range), "\(flag)'s range \(range) not in help") }
            if let value = flag.defaultText { #expect(flag.helpLine.contains(value), "\(flag)'s default not in help") }
        }
        #expect(help.contains("--rows <rows> Rows in the table (1 to 1000000). (default: 5000)"))
        #expect(help.contains("--coalesce <coalesce>, --no-coalesce"))
        let words = RunFlag.completionWords
        for word in ["--rows", "--no-coalesce", "--threshold", "suspend-while-dragging", "multi", "zipf", "background"] {
            #expect(words.contains(word), "\(word) not offered")
        }
        #expect(RunFlag.completions(after: ["--rows", "5", "--disk-read"]) == ["background", "main"])
    }

    @Test("the settings that became dimensions make one cell per value, named by it, and the gate's children get the lists")
    func newDimensions() throws {
        let plan = try RunOptions(parsing: ["--strategies", "threads", "--transport", "blocking,multi", "--coalesce", "on,off"]).plan()
        #expect(plan.cells.map(\.name) == ["threads ×5 transport=blocking coalesce=on", "threads ×5 transport=blocking coalesce=off",
                                           "threads ×5 transport=multi coalesce=on", "threads ×5 transport=multi coalesce=off"])
        let last = try #require(plan.cells.last)
        #expect(plan.settings(for: last).transport == .multi && plan.settings(for: last).coalesce == false)
        #expect(plan.settings.transport == .blocking && plan.settings.coalesce)
        let words = RunArguments(plan).words.joined(separator: " ")
        #expect(words.contains("--transport blocking,multi") && words.contains("--coalesce on,off"))
        #expect(try RunOptions(parsing: RunArguments(plan).words).plan() == plan)
        #expect(try BenchmarkPlan(jsonObject: plan.jsonObject()) == plan)

        let stages = try RunOptions(parsing: ["--strategies", "gcd", "--decode-concurrency", "off,2", "--filter", "none,sepia",
                                              "--disk-read", "background,main", "--disk-cache", "/tmp/imgbench-catalog-cache"]).plan()
        #expect(stages.measuredRuns == 8)
        #expect(stages.cells.first?.name == "gcd ×5 filter=none decode-concurrency=off disk-read=background")
        #expect(stages.cells.last?.name == "gcd ×5 filter=sepia decode-concurrency=2 disk-read=main")
        let settings = stages.cells.map { stages.settings(for: $0) }
        #expect(settings.map(\.decodeConcurrency) == [nil, nil, 2, 2, nil, nil, 2, 2])
        #expect(settings.map(\.filter) == [.none, .none, .none, .none, .sepia, .sepia, .sepia, .sepia])
        #expect(settings.map(\.diskRead) == [.background, .main, .background, .main, .background, .main, .background, .main])
        // events cannot run a blocking cell, and `all` leaves it out when any cell is blocking.
        #expect(throws: PlanError.self) { try RunOptions(parsing: ["--strategies", "events", "--transport", "multi,blocking"]).plan() }
        #expect(!(try RunOptions(parsing: ["--strategies", "all", "--transport", "multi,blocking"]).plan().strategies.contains(.events)))
        #expect(throws: PlanError("--decode-concurrency 'off,2,02' names a value twice")) {
            try RunOptions(parsing: ["--decode-concurrency", "off,2,02"]).plan()
        }
    }

    @Test("every dimension has its summary.csv column and its requests.csv column")
    func columns() {
        #expect(PolicyDimension.allCases.map(\.rawValue) == ["transport", "filter", "cancel", "coalesce", "prefetch", "decode_concurrency",
                                                             "memory_cache_mb", "disk_read", "http"])
        for dimension in PolicyDimension.allCases {
            let metric = Metric.named(dimension.rawValue)
            #expect(metric?.identifies == true, "\(dimension) has no summary column")
            var summary = RunSummary()
            let value = dimension.value(of: RunSettings())
            #expect(metric?.read(value, into: &summary) == true && dimension.value(of: summary) == value, "\(dimension)")
            #expect(RequestsCSV.header.contains(dimension.requestsColumn))
        }
    }
}

extension ChildProcessRuns {
    @Suite("A new dimension through the binary")
    struct DimensionThroughTheBinaryTests {
        @Test("--transport blocking,multi and --coalesce on,off: a row per cell in summary.csv, their columns in requests.csv, shards merged by them")
        func shardedAndMerged() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("dimension")
                defer { try? FileManager.default.removeItem(at: root) }
                let common = ["--clients", "2", "--no-decode", "--rows", "40", "--images", "12", "--network", "loopback",
                              "--strategies", "threads", "--transport", "blocking,multi", "--coalesce", "on,off", "--quiet"]
                for shard in 1...2 {
                    let run = try Fixtures.imgbench(common + ["--shard", "\(shard)/2", "--out", root.appendingPathComponent("shard-\(shard)").path])
                    try #require(run.status == 0, "\(run.output)")
                }
                let rows = try ChildProcessRuns.ClientsTests.rows(root.appendingPathComponent("shard-1/summary.csv"))
                #expect(rows.map { "\($0["transport"] ?? "?") \($0["coalesce"] ?? "?")" } == ["blocking on", "blocking off", "multi on", "multi off"])
                let requests = try ChildProcessRuns.ClientsTests.rows(root.appendingPathComponent("shard-1/requests.csv"))
                #expect(Set(requests.map { "\($0["transport"] ?? "?") \($0["coalesce"] ?? "?")" }) == ["blocking on", "blocking off", "multi on", "multi off"])
                let merged = try Fixtures.imgbench(["merge", "--out", root.appendingPathComponent("merged").path,
                                                    root.appendingPathComponent("shard-1").path, root.appendingPathComponent("shard-2").path])
                try #require(merged.status == 0, "\(merged.output)")
                let joined = try ChildProcessRuns.ClientsTests.rows(root.appendingPathComponent("merged/summary.csv"))
                #expect(joined.map { "\($0["transport"] ?? "?") \($0["coalesce"] ?? "?")" } == ["blocking on", "blocking off", "multi on", "multi off"])
                // Each merged cell holds both shards' requests, and only its own cell's.
                let shards = try (1...2).map { try ChildProcessRuns.ClientsTests.rows(root.appendingPathComponent("shard-\($0)/summary.csv")) }
                for (index, row) in joined.enumerated() {
                    #expect(Int(row["requests"] ?? "") == shards.reduce(0) { $0 + (Int($1[index]["requests"] ?? "") ?? 0) }, "\(row)")
                }
                let report = try String(contentsOf: root.appendingPathComponent("merged/report.md"), encoding: .utf8)
                #expect(report.contains("threads ×5 transport=multi coalesce=off"), "\(report.prefix(600))")
            }
        }
    }
}
