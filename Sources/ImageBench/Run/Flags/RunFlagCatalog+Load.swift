import Foundation

// The catalog's other groups: the network, load, measurement, output and testing aids.

extension RunFlag {
    static let network: [RunFlag] = [
        RunFlag("network", group: .network,
                help: "Network profile of the embedded server: loopback, wifi (default), lte, 3g, edge, or latency=80ms,jitter=20ms,bandwidth=2MB/s.",
                completion: .values(NetworkProfile.presets.map(\.name)),
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    // A list of presets would need the server to shape each cell differently.
                    let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    if items.count > 1, items.allSatisfy({ item in NetworkProfile.presets.contains { $0.name == item } }) {
                        throw PlanError("--network takes one profile: one server shapes every cell (run each profile on its own)")
                    }
                    let profile = try spec("--network: ") { () throws(NetworkProfile.ParseError) in try NetworkProfile(parsing: text) }
                    if target.options["source"] != nil {
                        throw PlanError("--network shapes the embedded server; a --source server is used as it is")
                    }
                    target.plan.settings.network = profile
                },
                words: { plan in
                    // The default profile is left unsaid, so a side's `--source` (which refuses a
                    // `--network`) can replace the embedded server, as it could before plans existed.
                    plan.settings.source == .embedded && plan.settings.network != RunSettings().network ? ["--network", plan.settings.network.name] : []
                }),
        RunFlag("faults", group: .network,
                help: "Faults the embedded server injects, e.g. 'error=2%,reset=1%,stall=1%,truncate=1%' (deterministic by seed).",
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    target.plan.settings.faults = try spec { () throws(ServerFaults.ParseError) in try ServerFaults(parsing: text) }
                    if target.options["source"] != nil {
                        throw PlanError("--faults shapes the embedded server; a --source server is used as it is")
                    }
                },
                words: { plan in
                    plan.settings.source == .embedded && !plan.settings.faults.isEmpty ? ["--faults", plan.settings.faults.description] : []
                }),
        RunFlag("timeout", group: .network,
                help: "Per-request timeout in seconds \(FlagRanges.help(FlagRanges.timeoutSeconds)), the decode included: a decode still running that long after its fetch began stops as a timeout.",
                range: FlagRanges.help(FlagRanges.timeoutSeconds), default: "10",
                apply: { text, target throws(PlanError) in
                    // Rounded, not truncated: 1.001 s is 1001 ms however the double falls.
                    let seconds = try real(text ?? "10", "--timeout", in: FlagRanges.timeoutSeconds)
                    target.plan.settings.fetchLimits.timeoutMilliseconds = Int((seconds * 1000).rounded())
                },
                words: { plan in ["--timeout", Format.compact(Double(plan.settings.fetchLimits.timeoutMilliseconds) / 1000)] }),
        RunFlag("stall-timeout", group: .network,
                help: "Fail a transfer that receives nothing for this many seconds (whole seconds) \(FlagRanges.help(FlagRanges.stallTimeoutSeconds)).",
                range: FlagRanges.help(FlagRanges.stallTimeoutSeconds), default: "5",
                apply: { text, target throws(PlanError) in
                    target.plan.settings.fetchLimits.stallMilliseconds = try whole(text ?? "5", "--stall-timeout", in: FlagRanges.stallTimeoutSeconds) * 1000
                },
                words: { plan in ["--stall-timeout", String(plan.settings.fetchLimits.stallMilliseconds / 1000)] }),
        integer("retries", group: .network,
                help: "Retry a fetch that timed out, lost its connection or got a 5xx/429 this many times (backoff 100 ms, doubling) \(FlagRanges.help(FlagRanges.retries)).",
                range: FlagRanges.retries, default: 0, at: \.settings.retry.retries),
        varied("http", group: .network,
               help: "HTTP version the client asks for: 1.1, or 2 (one connection per user and host, loads multiplexed as streams; ALPN over https, prior knowledge in clear text; needs --transport multi, which it picks when --transport is not given); a list (1.1,2) compares them.",
               default: HTTPVersion.http1_1.rawValue, completion: .values(HTTPVersion.allCases.map(\.rawValue)),
               dimension: Dimension(column: "http", label: "http", unit: "",
                                    canonical: { text throws(PlanError) in
                                        guard let version = HTTPVersion(rawValue: text == "2.0" ? "2" : text) else {
                                            throw PlanError("--http: unknown version '\(text)' (valid: 1.1, 2)")
                                        }
                                        return version.rawValue
                                    },
                                    // HTTP/1.1 is no key at all: plans recorded before --http existed are the same plan.
                                    apply: { value, settings in settings.fetchLimits.http = value == HTTPVersion.http2.rawValue ? .http2 : nil },
                                    value: { settings in settings.fetchLimits.httpVersion.rawValue })),
        toggle("tls", group: .network,
               help: "Serve the embedded server over HTTPS (ALPN h2 and http/1.1), with a certificate authority and a server certificate made for the run, which the client alone trusts; a new connection then costs TLS 1.3's round trip too.",
               at: \.settings.tls),
        RunFlag("ca-file", group: .network,
                help: "Trust the certificate authorities in this PEM file for HTTPS, instead of the system's (curl's --cacert); certificates are always verified.",
                completion: .file(extensions: ["pem", "crt"]),
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    guard FileManager.default.isReadableFile(atPath: text) else { throw PlanError("--ca-file: cannot read '\(text)'") }
                    target.plan.settings.fetchLimits.caFile = text
                },
                words: { plan in plan.settings.fetchLimits.caFile.map { ["--ca-file", $0] } ?? [] }),
        RunFlag("user-agent", value: "text", group: .network,
                help: "The User-Agent each request sends: a phone app's, to be served and logged as phones are; \"\" sends none (as wrk). Printable ASCII, at most \(FlagRanges.userAgentLength) characters.",
                default: FetchLimits.defaultUserAgent,
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    if let refusal = FetchLimits.userAgentRefusal(text) { throw PlanError("--user-agent: \(refusal)") }
                    // The default said out loud is the default: the same plan as without the flag.
                    target.plan.settings.fetchLimits.userAgent = text == FetchLimits.defaultUserAgent ? nil : text
                },
                words: { plan in plan.settings.fetchLimits.userAgent.map { ["--user-agent", $0] } ?? [] }),
        integer("max-bytes", group: .network, help: "Refuse bodies larger than this many bytes \(FlagRanges.help(FlagRanges.maxBytes)).",
                range: FlagRanges.maxBytes, default: FetchLimits().maxBytes, at: \.settings.fetchLimits.maxBytes),
    ]

    static let load: [RunFlag] = [
        RunFlag("clients", group: .load,
                help: "Simulated users in this process, each with its own trace (seed + index), viewport and memory cache \(FlagRanges.help(FlagRanges.clients)).",
                range: FlagRanges.help(FlagRanges.clients), default: "1",
                apply: { text, target throws(PlanError) in
                    target.plan.settings.clients = try whole(text ?? "1", "--clients", in: FlagRanges.clients)
                },
                words: { plan in
                    // `--stages` and `--arrival-rate` bring their own users and refuse a --clients.
                    switch plan.settings.load {
                    case nil, .duration: ["--clients", String(plan.settings.clients)]
                    case .stages, .arrivalRate: []
                    }
                }),
        // The load model joins three flags: `RunOptions.loadModel` reads them together.
        RunFlag("duration", group: .load,
                help: "Closed model: the --clients users scroll session after session for this long, e.g. 30s, 2m (0.1 s to 24 h).",
                range: "(0.1 s to 24 h)", apply: { _, _ in }, words: { plan in plan.settings.load?.flags ?? [] }),
        RunFlag("stages", group: .load,
                help: "Closed model, ramping: the number of users scrolling follows straight lines to each stage's target, e.g. 30s:100,2m:100,30s:0 (sets the users and the duration).",
                apply: { _, _ in }, words: { _ in [] }),
        RunFlag("arrival-rate", group: .load,
                help: "Open model: a new user arrives at this rate for --duration and scrolls one session, however slow the server, e.g. 5/s, 300/m.",
                range: FlagRanges.help(FlagRanges.arrivalRate), apply: { _, _ in }, words: { _ in [] }),
        RunFlag("shard", group: .load, help: "Run only the I-th of N slices of the clients, e.g. 2/4 (join the shards with imgbench merge).",
                apply: { text, target throws(PlanError) in if let text { target.plan.settings.shard = try ClientShard(parsing: text) } },
                words: { plan in plan.settings.shard.map { ["--shard", $0.description] } ?? [] }),
        RunFlag("no-decode", .flag, group: .load, help: "Fetch and discard (no decode, no filter): more load per machine when the server is under test.",
                apply: { text, target throws(PlanError) in if text == "true" { target.plan.settings.decodes = false } },
                words: { plan in plan.settings.decodes ? [] : ["--no-decode"] }),
    ]

    static let measurement: [RunFlag] = [
        integer("repeat", group: .measurement, help: "Repeat each cell this many times \(FlagRanges.help(FlagRanges.repeats)).",
                range: FlagRanges.repeats, default: 1, at: \.repeats),
        integer("warmup", group: .measurement, help: "Rounds of every cell to run first and not count \(FlagRanges.help(FlagRanges.warmup)).",
                range: FlagRanges.warmup, default: 0, at: \.warmups),
        RunFlag("warmup-seconds", group: .measurement,
                help: "Seconds of the trace each cell plays just before every measured run, not counted; 0: none \(FlagRanges.help(FlagRanges.warmupSeconds)).",
                range: FlagRanges.help(FlagRanges.warmupSeconds), default: "5",
                // Long enough for Dispatch's pool to grow to a limit of 5 (about a thread a second).
                apply: { text, target throws(PlanError) in target.plan.warmupSeconds = try real(text ?? "5", "--warmup-seconds", in: FlagRanges.warmupSeconds) },
                words: { plan in ["--warmup-seconds", Format.compact(plan.warmupSeconds)] }),
        RunFlag("budget", value: "duration", group: .measurement,
                help: "Instead of --repeat: a time budget, e.g. 3m. After a round of every cell, the cells not yet told apart from the leader run again on a new trace, those shown slower drop out, until all is decided or the budget is spent; intervals are split over the looks (Bonferroni).",
                range: "(10 s to 24 h)",
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    let seconds = try LoadModel.seconds(parsing: text, flag: "--budget")
                    target.plan.budget = Budget(seconds: try FlagRanges.check(seconds, in: FlagRanges.budgetSeconds, "--budget"))
                },
                words: { plan in plan.budget.map { ["--budget", Format.compact($0.seconds) + "s"] } ?? [] }),
        RunFlag("time", group: .measurement,
                help: "real, or virtual: the run loop, policies, caches and the events strategy's queueing on a virtual clock, the network modelled as the embedded server shapes it, every frame exactly one frame long: the same seed writes the same summary.csv, in a fraction of the trace's time. So far one user, --strategies events; decoding needs --host-delay-ms FILE from `imgbench calibrate --out FILE` (each image's decode time).",
                default: RunTime.real.rawValue, completion: .values(RunTime.allCases.map(\.rawValue)),
                apply: { text, target throws(PlanError) in if let text { target.plan.settings.time = try named(text, "--time") as RunTime } },
                // Said only when virtual: plans recorded before --time are real ones.
                words: { plan in plan.settings.isVirtual ? ["--time", RunTime.virtual.rawValue] : [] }),
        RunFlag("host-delay-ms", value: "ms|file", group: .measurement,
                help: "With --time virtual: the host's own time added to every modelled request (the frame's work reaching the row, curl and the loopback both ways), as `imgbench calibrate` measures it on this machine \(FlagRanges.help(FlagRanges.hostDelayMs)), or the file `imgbench calibrate --out` wrote (refused if measured on another machine or build), whose decode times a decoding virtual run needs; default 0.",
                range: FlagRanges.help(FlagRanges.hostDelayMs), completion: .file(extensions: ["json"]),
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    let file = Double(text) == nil ? try HostCalibration.checked(fromFile: text) : nil
                    let given = if let file { file.hostDelayMs } else { try real(text, "--host-delay-ms", in: FlagRanges.hostDelayMs) }
                    // Whole microseconds, as it is said back (a gate's re-run models the same delay);
                    // 0 is none, the same plan as without the flag.
                    let milliseconds = (given * 1_000).rounded() / 1_000
                    target.plan.settings.hostDelayMs = milliseconds > 0 ? milliseconds : nil
                    (target.plan.settings.calibrationFile, target.plan.settings.decodeCosts) = (file.map { _ in text }, file?.decodes)
                },
                // Said only when given (plans recorded before it had none); a decoding plan's file as
                // the file (its decode times are in it), any other as its number (self-contained).
                words: { plan in
                    (plan.settings.decodes ? plan.settings.calibrationFile.map { ["--host-delay-ms", $0] } : nil)
                        ?? plan.settings.hostDelayMs.map { ["--host-delay-ms", Format.compact($0)] } ?? []
                }),
        RunFlag("max-error-rate", value: "rate", group: .measurement,
                help: "Do not rank a cell whose HTTP requests failed more often than this, e.g. 1% or 0.01 (0% to 100%): its numbers measured the errors, not the images. With --faults, the default is 1% above the faults' total.",
                range: "(0% to 100%)", default: "1%",
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    target.plan.maxErrorRate = try share(text, "--max-error-rate", in: FlagRanges.maxErrorRate)
                },
                // Said only when not the default (a gate's child run on an older build knows no such
                // flag), as the number itself, which reads back exactly.
                words: { plan in plan.maxErrorRate.map { ["--max-error-rate", String($0)] } ?? [] }),
        RunFlag("rank-by", value: "metric", group: .measurement,
                help: "What the verdict ranks cells by: placeholder (placeholder time over every request, paired over the trace's segments: the default) or rest-wait (the rows' wait once the scroll stops, where the trace rests at least \(RestMeans.minimumRests) times).",
                default: RankBy.placeholder.rawValue, completion: .values(RankBy.allCases.map(\.rawValue)),
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    target.plan.rankBy = try named(text, "--rank-by") as RankBy
                },
                // Said only when given (a gate's child run on an older build knows no such flag).
                words: { plan in plan.rankBy.map { ["--rank-by", $0.rawValue] } ?? [] }),
    ]

    static let output: [RunFlag] = [
        RunFlag("out", group: .output, help: "Results directory (default: imgbench-results/<timestamp>).", completion: .directory,
                apply: { text, target throws(PlanError) in target.output.directory = text }, words: { _ in [] }),
        outputToggle("quiet", group: .output, help: "No progress output.") { $0.quiet = true },
        outputToggle("force", group: .output,
                     help: "Write into an --out directory that already holds files (the ones imgbench writes are replaced).") { $0.force = true },
        RunFlag("format", group: .output,
                help: "What goes to stdout: text (the verdict and the table) or json (summary.json, for jq; the verdict and the table go to stderr).",
                default: "text", completion: .values(["text", "json"]),
                apply: { text, target throws(PlanError) in
                    guard ["text", "json", nil].contains(text) else { throw PlanError("--format: unknown value '\(text ?? "")' (valid: text, json)") }
                    target.output.json = text == "json"
                },
                words: { _ in [] }),
        RunFlag("threshold", .repeatable, group: .output,
                help: "A limit every run must keep, e.g. 'display_p95_ms < 100' (also <=, >, >=; any metric of summary.csv); repeatable. One broken: exit 1 after the reports are written.",
                apply: { _, target throws(PlanError) in
                    let texts = target.options.all("threshold")
                    target.output.thresholds = try spec { () throws(Threshold.ParseError) in try RunThresholds.parse(texts) }
                },
                words: { _ in [] }),
        // Not part of the plan: a gate's child runs and a re-run from plan.json serve nothing.
        RunFlag("metrics-address", value: "host:port", group: .output,
                help: "Serve live metrics in Prometheus's text format at http://HOST:PORT/metrics while the run goes, e.g. 127.0.0.1:9464, its port \(FlagRanges.help(FlagRanges.metricsPort)): requests by status, bytes, errors, request and first-byte time histograms, active users, per cell. After the run it keeps serving until one scrape has read the final values, at most 5 s more.",
                range: FlagRanges.help(FlagRanges.metricsPort),
                apply: { text, target throws(PlanError) in if let text { target.output.metricsAddress = try MetricsAddress(parsing: text) } },
                words: { _ in [] }),
    ]

    static let testing: [RunFlag] = [
        RunFlag("inject", group: .testing, help: "Testing aid: slow a stage on purpose, e.g. 'latency=+20%' or 'decode=+3ms' (latency, decode, filter), or break the cancel policy with 'cancel=running-only' (queued loads are never cancelled).",
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    target.plan.settings.injection = try spec { () throws(FaultInjection.ParseError) in try FaultInjection(parsing: text) }
                },
                words: { plan in plan.settings.injection != .none ? ["--inject", plan.settings.injection.description] : [] }),
    ]
}
