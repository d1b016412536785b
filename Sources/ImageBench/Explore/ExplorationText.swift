import Foundation

/// What `imgbench explore` prints (and writes to explore.md): per network, the model's ranking,
/// its Pareto front, the real runs of its best cells and the user's settings with the model's
/// error on each, and the real runs' verdict, which is the answer.
extension Exploration {
    /// How many of the model's ranking are listed (the confirmed and the user's cells always are).
    static let listed = 10

    /// What it wrote under `directory`, as the command's last line lists it: explore.md, the
    /// calibration where the host was measured, each network's results directories. An
    /// exploration stopped before its first combination wrote explore.md alone.
    public func written(in directory: URL) -> [String] {
        let calibrated = FileManager.default.fileExists(atPath: directory.appendingPathComponent("calibration.json").path)
        return ["explore.md"] + (calibrated ? ["calibration.json"] : [])
            + networks.flatMap { [$0.modelDirectory.lastPathComponent + "/"] + ($0.confirmDirectory.map { [$0.lastPathComponent + "/"] } ?? []) }
    }

    public var text: String {
        if networks.isEmpty, let stoppedBy {
            return "Stopped by \(stoppedBy) before any combination was explored: nothing to rank.\n"
        }
        let combinations = networks.map(\.combinations).reduce(0, +)
        var lines = ["Explored \(combinations) combinations in virtual time ("
                     + networks.map { "\($0.name): \($0.combinations) in \(Self.seconds($0.modelSeconds))" }.joined(separator: ", ")
                     + ")" + hostDelay
                     + ". The model only chooses what to run: the verdict below each network is its real runs'."]
        for network in networks { lines += [""] + network.lines(confirmTop: confirmTop) }
        if let stoppedBy { lines += ["", "Stopped by \(stoppedBy): the exploration is incomplete."] }
        return lines.joined(separator: "\n") + "\n"
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
    static func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
    static func kB(_ bytes: Double) -> String { String(format: "%.1f kB", bytes / 1_000) }
}

extension Exploration.Network {
    func lines(confirmTop: Int) -> [String] {
        let ranking = self.ranking
        let metric = ranking.first?.rankedBy.rawValue ?? "placeholder time"
        let cells = model.count > combinations
            ? "the \(model.count) cells (the \(combinations) combinations and your settings, which are not one of them)"
            : "the \(combinations) combinations"
        var lines = ["## \(name)", "", "The model's ranking (\(metric), mean; bytes per shown image), \(ranking.count) of \(cells) ranked:"]
        let confirmedChoices = Set(confirmed.map(\.model.choice))
        for (place, cell) in ranking.enumerated() where place < Exploration.listed || confirmedChoices.contains(cell.choice) || cell.choice == current {
            let marks = [cell.choice == current ? "your settings" : nil, confirmedChoices.contains(cell.choice) ? "confirmed below" : nil].compactMap { $0 }
            lines.append("  \(place + 1). \(cell.choice.name): \(Exploration.ms(cell.meanMs)), \(Exploration.kB(cell.bytesPerImage))"
                         + (marks.isEmpty ? "" : " (\(marks.joined(separator: ", ")))"))
        }
        for cell in model where !cell.ranked {
            lines.append("  not ranked: \(cell.choice.name): \(cell.invalidReason ?? "not valid")")
        }
        lines += ["", "The model's Pareto front (nothing else waits less for as few bytes), cheapest first:"]
        for step in ParetoFront(model).steps {
            let trade = step.savesMs.map { saves in
                String(format: ": %.1f ms less wait", saves) + " for \(Exploration.kB(step.addsBytesPerImage ?? 0)) more per image"
            } ?? ""
            lines.append("  \(step.cell.choice.name) (\(Exploration.ms(step.cell.meanMs)), \(Exploration.kB(step.cell.bytesPerImage)))\(trade)")
        }
        guard !confirmed.isEmpty else {
            return lines + ["", confirmTop == 0 ? "Not confirmed (--confirm 0): the model's ranking is no verdict; run its best cells for real to get one."
                                                 : "Not confirmed: no cell could be run for real."]
        }
        lines += ["", "Confirmed by real runs of the same trace (\(Exploration.seconds(realSeconds))): the model against them"]
        lines += ["  cell | model | real [95% interval] | model's error | memory hits / network fetches / merged, model vs real"]
        for (modelled, real) in confirmed {
            let counts = "\(modelled.memoryHits)/\(modelled.networkFetches)/\(modelled.merged) vs \(real.memoryHits)/\(real.networkFetches)/\(real.merged)"
            lines.append("  \(real.choice.name)\(real.choice == current ? " (yours)" : "") | \(Exploration.ms(modelled.meanMs)) | "
                         + (real.ranked ? Exploration.ms(real.meanMs) + (real.interval.map { String(format: " [%.1f, %.1f]", $0.low, $0.high) } ?? "")
                                        : "not ranked: \(real.invalidReason ?? "")")
                         + " | \(Self.error(of: modelled, against: real)) | \(counts)")
        }
        lines += ["", "Verdict (real runs):"] + verdict.map { "  " + $0 }
        lines += leaderLines
        lines.append("  Results: \(modelDirectory.path)/ (model), \(confirmDirectory?.path ?? "-")/ (real)")
        return lines
    }

    /// The model's figure less the real one, where both rank by the same metric and the real
    /// cell could be ranked at all.
    static func error(of modelled: ExploredCell, against real: ExploredCell) -> String {
        guard modelled.ranked && real.ranked else { return "no error: not ranked" }
        guard modelled.rankedBy == real.rankedBy else {
            return "not comparable: the model ranks by \(modelled.rankedBy.rawValue), the real runs by \(real.rankedBy.rawValue)"
        }
        let difference = String(format: "%+.1f ms", modelled.meanMs - real.meanMs)
        guard let interval = real.interval else { return difference + " (the real run gave no interval)" }
        let inside = interval.low <= modelled.meanMs && modelled.meanMs <= interval.high
        return difference + (inside ? ", inside the real interval" : ", outside the real interval")
    }

    /// What the real verdict's lead amounts to: flags to type only when it is beyond noise.
    private var leaderLines: [String] {
        guard let leader, let decision else { return [] }
        let model = ranking.first.map { $0.choice == leader ? " (the model's best too)" : " (the model's best: \($0.choice.name))" } ?? ""
        switch decision {
        case .better, .cheaper:
            return ["  The real runs recommend \(leader.name)\(model). Its flags: \(leader.flags)"]
        case .alone:
            return ["  Only \(leader.name) could be ranked among the real runs: nothing to compare it with, so nothing is recommended."]
        case .tie:
            return ["  The real runs tie: no cell is better beyond noise on wait or on cost, so none is recommended (the verdict leads with \(leader.name)\(model))."]
        case .undecided:
            // The lead is not always the lowest mean: among cells tied with it, the cheapest leads.
            return ["  Undecided: the real verdict leads with \(leader.name)\(model), not shown better beyond noise, so nothing is recommended; "
                    + "a longer trace (--rows) gives more rests and segments, and narrower intervals."]
        }
    }
}
