/// `--time`: a run on the real clock, with real sockets and decoders, or on a virtual clock with
/// the network modelled (`ModelledTransport`): the same run loop, request book, registry,
/// policies, caches, merging, prefetch and strategy queueing, every frame exactly one frame long.
enum RunTime: String, Sendable, Codable, CaseIterable {
    case real
    case virtual
}

/// The base of every URL of a virtual run: no server answers it, the model does.
let virtualBaseURL = "http://virtual.invalid"

extension RunSettings {
    public var isVirtual: Bool { time == .virtual }

    /// How a virtual run's openings name its host delay: ", with the host's own 0.685 ms per
    /// request (--host-delay-ms)", `source` saying where it came from; empty without one. A run
    /// that decodes says its decodes are the calibration's too.
    func hostDelayPhrase(from source: String = "--host-delay-ms") -> String {
        let decodes = self.decodes && decodeCosts != nil ? ", and each image's decode as timed on this machine" : ""
        return (hostDelayMs.map { ", with the host's own \(Format.compact($0)) ms per request (\(source))" } ?? "") + decodes
    }

    /// The same settings on the real clock, without what only the model has (its host delay):
    /// a real run measures its host.
    var onRealClock: RunSettings {
        var real = self
        (real.time, real.hostDelayMs, real.calibrationFile, real.decodeCosts) = (.real, nil, nil, nil)
        return real
    }
}

extension Benchmark {
    /// One virtual-time run of a cell: a fresh virtual clock and a modelled network for the
    /// user, the body sizes from the workload (the embedded corpus's). What the host measures
    /// (CPU, peak memory) is no part of a virtual run: it is written as 0, so that two runs of
    /// the same plan write the same summary.csv.
    static func runVirtualCell(_ cell: RunCell, workload: Workload, settings: RunSettings, stop: StopRequest?,
                               observer: (any BenchmarkObserver)?) -> RunResult {
        let clock = VirtualClock()
        let sizes = Dictionary(workload.images.map { ($0.url, $0.expectedBytes ?? 0) }, uniquingKeysWith: { first, _ in first })
        let transport = ModelledTransport(profile: settings.injection.applied(to: settings.network), seed: settings.seed, sizes: sizes,
                                          http: settings.fetchLimits.httpVersion, tls: settings.tls == true,
                                          drawsPerPicture: cell.format != .mixed,
                                          hostDelay: UInt64((settings.hostDelayMs ?? 0) * 1e6), clock: clock)
        let decodes = settings.decodeCosts.flatMap { settings.decodes ? ModelledDecodes($0, images: workload.images, filter: settings.filter, clock: clock) : nil }
        // The plan's check saw to it (`validateVirtualTime`): a decode is never modelled as free.
        precondition(!settings.decodes || decodes != nil, "a virtual run that decodes reached its cell without its images' decode times")
        let run = ScrollRun(workload: workload, settings: settings, cell: cell, transport: transport, stop: stop, clock: clock, modelled: decodes)
        var result = run.run { progress in observer?.runProgress(cell, progress) }
        (result.summary.cpuUserS, result.summary.cpuSysS, result.summary.peakRssMb) = (0, 0, 0)
        return result
    }
}

extension BenchmarkPlan {
    /// What a virtual run models so far; the rest is refused in one line rather than run on
    /// the real clock's assumptions.
    func validateVirtualTime(decodeCostsLater: Bool = false) throws(PlanError) {
        let s = settings
        guard s.isVirtual else {
            if s.hostDelayMs != nil { throw PlanError("--host-delay-ms models a virtual run's host (--time virtual); a real run has its own") }
            return
        }
        func check(_ holds: Bool, _ message: String) throws(PlanError) {
            if !holds { throw PlanError("--time virtual: \(message)") }
        }
        try check(s.source == .embedded, "the network is modelled on the embedded server's shaping; a --source is real by nature")
        if s.decodes, !(decodeCostsLater && s.decodeCosts == nil) {
            guard let costs = s.decodeCosts else {
                if let file = s.calibrationFile {
                    throw PlanError("--time virtual: --host-delay-ms \(file) holds no decode times: imgbench calibrate --images N --out FILE "
                                    + "measures them (or --no-decode)")
                }
                throw PlanError("--time virtual: decodes are modelled with this machine's own decode times: --host-delay-ms FILE, "
                                + "from imgbench calibrate --out FILE (or --no-decode)")
            }
            // Each policy variant's (a varied --filter needs each filter's time), once: the cells
            // of one variant differ only in strategy, limit and repeat.
            if let why = variants.lazy.compactMap({ costs.mismatch(with: $0.applied(to: s), format: formats.first ?? .mixed) }).first {
                throw PlanError("--time virtual: --host-delay-ms \(s.calibrationFile ?? "") timed other decodes (\(why)): "
                                + "imgbench calibrate --images N --seed S measures the ones this run needs")
            }
        }
        let stageQueues = s.decodeConcurrency != nil || s.filterConcurrency != nil
            || variations.contains { ["decode_concurrency", "filter_concurrency"].contains($0.dimension.rawValue) }
        try check(!stageQueues, "--decode-concurrency and --filter-concurrency are not modelled")
        try check(s.clients == 1 && s.load == nil && s.shard == nil, "one user only, so far (no --clients, load model or --shard)")
        try check(strategies == [.events], "only the events strategy's queueing is modelled: --strategies events")
        try check(s.faults.isEmpty, "--faults are not modelled")
        try check(s.diskCacheDirectory == nil, "a --disk-cache is not modelled")
        try check(s.resume != true && s.progressive != true, "--resume and --progressive are not modelled")
        try check(!s.injection.slowsStages, "--inject slows real stages; a virtual run has none (cancel=running-only it runs)")
        try check(budget == nil, "a --budget races real runs' noise; a virtual run has none (use --repeat 1)")
        // The server draws a delay per picture whenever --formats names any; one format keeps
        // the model's draw the same.
        try check(formats.count == 1, "one --formats value at a time, so far")
    }
}
