import Foundation

/// What a varied policy does with everything else held fixed: for each pair of cells that differ
/// only in it (same strategy, limit, format and other policies), the difference on the same
/// trace. Placeholder time and wait at rest are paired (over trace segments and over rests, with
/// the run-to-run noise, as the verdict pairs cells); bytes, memory hits and CPU are the two
/// runs' own totals, with an interval over repeats where there are two or more. A saving is such
/// a difference against the policy that does not save (`--cancel none,offscreen`: bytes(none) −
/// bytes(offscreen)), not an estimate of what cancelled transfers would have cost.
struct Effects: Sendable {
    struct Effect: Sendable {
        let dimension: PolicyDimension
        let value: String
        let baseline: String
        /// The cell both share, without the policy: "threads ×5 prefetch=10".
        let context: String
        let placeholder: Interval?
        let restWait: Interval?
        /// Bytes downloaded, value minus baseline: the mean over repeats, and its interval over
        /// repeats paired by repeat number (nil with one run).
        let bytes: Double
        let bytesInterval: Interval?
        let baselineBytes: Double
        let memoryHitPoints: Double
        let cpuMsPerImage: Double
    }

    let effects: [Effect]

    init(_ results: [RunResult], traceFrames: Int) {
        // Only valid cells are compared (not the control, a mostly failed, stopped or overloaded one).
        let groups = RunResult.byCell(results).filter { CellValidity($0.map(\.summary)).isValid }
        func key(_ cell: RunCell, _ variant: PolicyVariant) -> String {
            "\(cell.strategy.rawValue)|\(cell.concurrency)|\(cell.format.description)|\(variant.suffix)"
        }
        let byKey = Dictionary(groups.map { (key($0[0].cell, $0[0].cell.variant), $0) }, uniquingKeysWith: { first, _ in first })
        let dimensions = Set(results.flatMap { $0.cell.variant.values.keys }).sorted()
        var effects: [Effect] = []
        for dimension in dimensions {
            // The first value of the list is the baseline: the order the user gave.
            let values = results.compactMap { $0.cell.variant.values[dimension] }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            guard let baseline = values.first else { continue }
            for group in groups {
                let cell = group[0].cell
                guard let value = cell.variant.values[dimension], value != baseline,
                      let other = byKey[key(cell, cell.variant.with(dimension, baseline))] else { continue }
                effects.append(Self.effect(dimension, value, baseline, group, other, traceFrames: traceFrames))
            }
        }
        self.effects = effects
    }

    static func effect(_ dimension: PolicyDimension, _ value: String, _ baseline: String, _ runs: [RunResult], _ other: [RunResult],
                       traceFrames: Int) -> Effect {
        var context = runs[0].cell.variant
        context.values[dimension] = nil
        let name = CellName.of(strategy: runs[0].cell.strategy.rawValue, concurrency: runs[0].cell.concurrency,
                               format: runs[0].cell.format.description) + context.suffix
        let placeholder = SegmentMeans(placeholdersOf: runs, traceFrames: traceFrames)
            .difference(from: SegmentMeans(placeholdersOf: other, traceFrames: traceFrames))
        let restWait = RestMeans.of(runs).flatMap { mine in RestMeans.of(other).flatMap { mine.difference(from: $0) } }
        func mean(_ runs: [RunResult], _ value: (RunSummary) -> Double) -> Double {
            runs.map { value($0.summary) }.reduce(0, +) / Double(runs.count)
        }
        let bytes = { (summary: RunSummary) in Double(summary.bytesDownloaded) }
        // Repeats pair by number: the k-th run of each cell ran in the same round.
        let byRepeat = Dictionary(other.map { ($0.cell.repetition, Double($0.summary.bytesDownloaded)) }, uniquingKeysWith: { a, _ in a })
        let paired = runs.compactMap { run in byRepeat[run.cell.repetition].map { Double(run.summary.bytesDownloaded) - $0 } }
        let difference = mean(runs, bytes) - mean(other, bytes)
        let cpu = { (summary: RunSummary) in (summary.cpuUserS + summary.cpuSysS) * 1e3 / Double(max(1, summary.displayed)) }
        return Effect(dimension: dimension, value: value, baseline: baseline, context: name, placeholder: placeholder, restWait: restWait,
                      bytes: difference, bytesInterval: Interval.of(paired, center: difference), baselineBytes: mean(other, bytes),
                      memoryHitPoints: 100 * (mean(runs, \.memoryHitRate) - mean(other, \.memoryHitRate)),
                      cpuMsPerImage: mean(runs, cpu) - mean(other, cpu))
    }

    /// One line per effect, for the verdict's lines.
    var lines: [String] {
        guard !effects.isEmpty else { return [] }
        return ["Effects, each with everything else held fixed on the same trace (value vs the first one given):"] + effects.map { effect in
            let label = effect.dimension.label(effect.value)
            let placeholder = effect.placeholder.map { "placeholder time " + Verdict.signed($0) + " (paired over \($0.n) trace segments)" }
                ?? "placeholder time not comparable"
            let rest = effect.restWait.map { "; wait at rest " + Verdict.signed($0) + " (over \($0.n) rests)" } ?? ""
            let megabytes = effect.bytes / 1e6
            let bytes = String(format: "%+.2f MB downloaded (%.2f → %.2f MB", megabytes, effect.baselineBytes / 1e6, (effect.baselineBytes + effect.bytes) / 1e6)
                + (effect.bytesInterval.map { String(format: ", %@ CI %+.2f to %+.2f MB over %d repeats)", Confidence.label, $0.low / 1e6, $0.high / 1e6, $0.n) }
                   ?? ", one run each: --repeat 3 gives an interval)")
            // A saving only where it is one: beyond the noise with repeats; with one run each, the
            // difference this trace showed, said as that.
            let saving: String
            if let interval = effect.bytesInterval {
                saving = interval.high < 0 ? String(format: ": saves %.2f MB", -megabytes) : interval.low > 0 ? "" : ": no saving beyond noise"
            } else {
                saving = effect.bytes < 0 ? String(format: ": %.2f MB less on this trace", -megabytes) : ""
            }
            return "\(label) vs \(effect.baseline) at \(effect.context): \(placeholder)\(rest); \(bytes)\(saving); "
                + String(format: "memory hits %+.1f points; CPU per shown image %+.2f ms.", effect.memoryHitPoints, effect.cpuMsPerImage)
        }
    }
}
