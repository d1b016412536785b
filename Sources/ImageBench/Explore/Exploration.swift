import Foundation

/// `imgbench explore`: every combination of the space in virtual time (`--time virtual`: seconds,
/// not the trace's length, per cell), ranked on the verdict's metric and on bytes, then the
/// model's best cells and the user's own settings run for real on the same trace. The model only
/// chooses what to run: the verdict is the real runs', and beside each confirmed cell stands the
/// model's error against it, so a user sees when the model is wrong, and by how much.
public struct Exploration: Sendable {
    /// One network's exploration.
    public struct Network: Sendable {
        let name: String
        /// The space's size: its combinations, without the user's settings where they lie outside it.
        let combinations: Int
        /// Every combination as the model ran it, in the space's order (then the user's settings).
        let model: [ExploredCell]
        let modelSeconds: Double
        /// The user's own settings in this space.
        let current: ExploredChoice
        /// What real runs confirmed, each beside the model's figures for it: the model's best first,
        /// then the user's settings (when not among them).
        let confirmed: [(model: ExploredCell, real: ExploredCell)]
        /// The real runs' verdict (empty when nothing was confirmed), the cell it leads with and
        /// whether that lead is beyond noise (a tie or undecided recommends nothing).
        let verdict: [String]
        var leader: ExploredChoice?
        var decision: Verdict.Decision?
        let realSeconds: Double
        let modelDirectory: URL
        let confirmDirectory: URL?

        /// The model's ranking: ranked cells, least wait first (bytes break ties).
        var ranking: [ExploredCell] {
            model.filter(\.ranked).sorted { ($0.meanMs, $0.bytesPerImage) < ($1.meanMs, $1.bytesPerImage) }
        }
    }

    public let networks: [Network]
    let confirmTop: Int
    /// The host's own time the model added per request (`--host-delay-ms`), as said; empty if none.
    let hostDelay: String
    /// The run was stopped (SIGINT) before it was through.
    public let stoppedBy: String?

    /// Runs it all, writing each network's model runs to `directory/model-NETWORK` and its real
    /// runs to `directory/confirm-NETWORK` (the usual results directories: reports, CSVs).
    public static func run(_ options: ExploreOptions, into directory: URL, observer: (any BenchmarkObserver)?, stop: StopRequest?,
                           corpusCache: CorpusCache?, announce: @Sendable (String) -> Void) throws -> Exploration {
        var networks: [Network] = []
        var plans = options.plans
        if options.calibrates, try !calibrate(&plans, into: directory, observer: observer, stop: stop, announce: announce) {
            return Exploration(networks: [], confirmTop: options.confirmTop, hostDelay: "", stoppedBy: stop?.reason)
        }
        let hostDelay = plans.first?.settings.hostDelayPhrase(from: options.calibrates ? "measured first: calibration.json" : "--host-delay-ms") ?? ""
        for plan in plans {
            let name = plan.settings.network.name
            let current = try options.currentCell(in: plan)
            announce("\(name): \(plan.measuredRuns) combinations in virtual time")
            let modelStarted = MonotonicClock().now()
            var model = try Benchmark.run(plan, observer: observer, stop: stop, corpusCache: corpusCache)
            if stop?.isRequested == true {
                return Exploration(networks: networks, confirmTop: options.confirmTop, hostDelay: hostDelay,
                                   stoppedBy: stop?.reason)
            }
            // Settings outside the space are modelled too: their error is part of the answer.
            if !plan.cells.contains(where: { $0.concurrency == current.concurrency && $0.variant == current.variant }) {
                let own = try Benchmark.run(current.plan(from: plan), observer: observer, stop: stop, corpusCache: corpusCache)
                model = model.adding(own.results.map { $0.labelled(current.variant) })
            }
            let modelSeconds = Double(MonotonicClock().now() - modelStarted) / 1e9
            let modelDirectory = directory.appendingPathComponent("model-\(Self.folderName(name))")
            try Reports.write(model, to: modelDirectory)
            let cells = ExploredCell.all(model)
            var exploration = Network(name: name, combinations: plan.measuredRuns, model: cells, modelSeconds: modelSeconds, current: current, confirmed: [], verdict: [],
                                      realSeconds: 0, modelDirectory: modelDirectory, confirmDirectory: nil)
            let chosen = Self.toConfirm(exploration, top: options.confirmTop)
            guard !chosen.isEmpty else {
                networks.append(exploration)
                continue
            }
            announce("\(name): confirming \(chosen.count) cell(s) with real runs on the same trace")
            let realStarted = MonotonicClock().now()
            var real: BenchmarkResults?
            for choice in chosen {
                var one = choice.plan(from: plan)
                one.settings = one.settings.onRealClock
                let ran = try Benchmark.run(one, observer: observer, stop: stop, corpusCache: corpusCache)
                let labelled = ran.results.map { $0.labelled(choice.variant) }
                real = real.map { $0.adding(labelled) } ?? ran.replacing(labelled, plan: Self.plan(confirming: chosen, from: plan))
                if stop?.isRequested == true { break }
            }
            // Nothing ran for real only when stopped before the first confirmation finished.
            guard let real else {
                networks.append(exploration)
                break
            }
            let confirmDirectory = directory.appendingPathComponent("confirm-\(Self.folderName(name))")
            try Reports.write(real, to: confirmDirectory)
            let realCells = ExploredCell.all(real)
            let judged = real.atItsConfidence { Verdict(real) }
            exploration = Network(name: name, combinations: plan.measuredRuns, model: cells, modelSeconds: modelSeconds, current: current,
                                  confirmed: chosen.compactMap { choice in
                                      guard let measured = realCells.first(where: { $0.choice == choice }),
                                            let modelled = cells.first(where: { $0.choice == choice }) else { return nil }
                                      return (modelled, measured)
                                  },
                                  verdict: judged.lines,
                                  realSeconds: Double(MonotonicClock().now() - realStarted) / 1e9,
                                  modelDirectory: modelDirectory, confirmDirectory: confirmDirectory)
            exploration.leader = judged.recommended.flatMap { lead in
                chosen.first { $0.concurrency == lead.concurrency && $0.variant.suffix == lead.variant }
            }
            exploration.decision = judged.decision
            networks.append(exploration)
            if stop?.isRequested == true { break }
        }
        return Exploration(networks: networks, confirmTop: options.confirmTop, hostDelay: hostDelay,
                               stoppedBy: stop?.reason)
    }

    /// Measures this machine's own time per request (the run `imgbench calibrate` makes, on as
    /// many rows as the explored trace, 200 to 2,000), gives it to every plan's model and writes
    /// it to `directory/calibration.json`: the model's answers then land where the real runs'
    /// do (README, "The model against real runs"). False when stopped first.
    private static func calibrate(_ plans: inout [BenchmarkPlan], into directory: URL, observer: (any BenchmarkObserver)?,
                                  stop: StopRequest?, announce: @Sendable (String) -> Void) throws -> Bool {
        let rows = min(HostCalibration.defaultRows, max(HostCalibration.rowRange.lowerBound, plans[0].settings.rows))
        // A decoding space's images, timed as calibrate times them: as many as its feeds use.
        let images = plans[0].settings.decodes ? plans.map(\.settings.resolvedImageCount).max() ?? 0 : 0
        announce("calibrating: a real \(rows)-row fling on loopback measures this machine's own time per request"
                 + (images > 0 ? ", then the decodes of \(images) images" : ""))
        let calibration: HostCalibration
        do {
            calibration = try HostCalibration.measure(rows: rows, images: images, seed: plans[0].settings.seed,
                                                      format: plans[0].formats.first ?? .mixed, observer: observer, stop: stop)
        } catch {
            if stop?.isRequested == true { return false }
            throw error
        }
        // A delay of none is no measurement, one past the flag's range a machine too busy to model.
        guard calibration.hostDelayMs > 0, FlagRanges.hostDelayMs.contains(calibration.hostDelayMs) else {
            throw BenchmarkError(description: "this machine's own time per request measured \(Format.compact(calibration.hostDelayMs)) ms, "
                                 + "not a delay above 0 and up to \(Format.compact(FlagRanges.hostDelayMs.upperBound)) ms: "
                                 + "give one with --host-delay-ms (0: the model without it)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("calibration.json")
        try calibration.jsonData().write(to: file)
        for index in plans.indices {
            plans[index].settings.hostDelayMs = calibration.hostDelayMs
            guard let decodes = calibration.decodes else {
                if plans[index].settings.decodes { throw BenchmarkError(description: "the calibration timed no decodes for a space that decodes") }
                continue
            }
            (plans[index].settings.decodeCosts, plans[index].settings.calibrationFile) = (decodes, file.path)
            do throws(PlanError) { try plans[index].validate() } catch { throw BenchmarkError(description: error.description) }
        }
        return true
    }

    /// The model's best `top` cells, then the user's settings (once).
    static func toConfirm(_ network: Network, top: Int) -> [ExploredChoice] {
        guard top > 0 else { return [] }
        let best = network.ranking.prefix(top).map(\.choice)
        return best.contains(network.current) ? Array(best) : best + [network.current]
    }

    /// The plan the confirmed cells make together (for their results directory): their limits,
    /// and each policy varied over the values they hold, on the real clock.
    static func plan(confirming choices: [ExploredChoice], from plan: BenchmarkPlan) -> BenchmarkPlan {
        var joined = plan
        joined.settings = joined.settings.onRealClock
        joined.concurrencies = GateRunner.unique(choices.map(\.concurrency))
        joined.variations = plan.variations.compactMap { variation in
            let values = variation.values.filter { value in choices.contains { $0.variant.values[variation.dimension] == value } }
            if values.count == 1 { variation.dimension.apply(values[0], to: &joined.settings) }
            return values.count > 1 ? PolicyVariation(dimension: variation.dimension, values: values) : nil
        }
        return joined
    }

    /// A network's name as a folder's (a custom profile's spec has commas and slashes).
    static func folderName(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "-" })
    }
}

extension RunResult {
    /// The same run named as a cell of the explored space: its policies' values in its name.
    func labelled(_ variant: PolicyVariant) -> RunResult {
        var copy = self
        copy.cell.variant = variant
        return copy
    }
}

extension BenchmarkResults {
    /// These results with more runs of the same trace after them.
    func adding(_ more: [RunResult]) -> BenchmarkResults { replacing(results + more, plan: plan) }

    /// The same benchmark (corpus, trace, environment) with other runs under another plan.
    func replacing(_ runs: [RunResult], plan: BenchmarkPlan) -> BenchmarkResults {
        var copy = BenchmarkResults(plan: plan, results: runs, corpusImages: corpusImages, corpusBytes: corpusBytes, serverURL: serverURL,
                                    traceSeconds: traceSeconds, startedAt: startedAt, environment: environment)
        copy.stoppedBy = stoppedBy
        return copy
    }
}
