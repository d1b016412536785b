import Foundation

/// `imgbench compare BASE NEW`: every numeric metric the two directories share, for every
/// strategy × concurrency cell they share (the mean over repeats), with its relative change.
public struct ResultsComparison: Sendable {
    struct Line: Sendable, Equatable {
        let cell: ResultCell
        let metric: String
        let base: Double
        let new: Double
        /// Whether the change is beyond the noise: "worse", "better", "same", "?" or "" (see
        /// `ResultsComparison.noise`).
        let noise: String
        /// (new − base) / |base|; nil when base is 0.
        var relativeChange: Double? { base == 0 ? (new == 0 ? 0 : nil) : (new - base) / abs(base) }
    }

    let base: ResultsDirectory
    let new: ResultsDirectory
    let lines: [Line]
    /// Cells present in only one of the two directories.
    let unmatched: [String]
    /// Each shared cell's verdict, in the base's order (read from the two requests.csv once).
    let verdicts: [CellVerdict]

    /// What a comparison shows unless asked for every metric: what the user feels, what it costs,
    /// and whether it failed; enough to fit a screen for a few cells.
    static let onScreen = [
        "placeholder_mean_ms", "placeholder_p95_ms", "rest_wait_mean_ms", "settle_p95_ms", "placeholder_row_s_per_s",
        "display_p95_ms", "hitch_ms_per_s", "displayed", "memory_hit_rate", "network_fetches", "bytes_downloaded",
        "cpu_user_s", "cpu_sys_s", "peak_rss_mb", "errors",
    ]

    /// `all`: every numeric metric both share; else those of `onScreen` (in its order).
    public init(base: ResultsDirectory, new: ResultsDirectory, all: Bool = true) {
        self.base = base
        self.new = new
        let shared = base.header.filter { new.header.contains($0) && Metric.named($0)?.identifies != true }
        let metrics = all ? shared : Self.onScreen.filter(shared.contains)
        let newCells = Dictionary(uniqueKeysWithValues: new.cells.map { ($0.cell, $0.runs) })
        var lines: [Line] = []
        for (cell, baseRuns) in base.cells {
            guard let newRuns = newCells[cell] else { continue }
            for metric in metrics {
                guard let b = Self.mean(baseRuns, metric), let n = Self.mean(newRuns, metric) else { continue }
                lines.append(Line(cell: cell, metric: metric, base: b, new: n,
                                  noise: Self.noise(metric, before: Self.values(baseRuns, metric), after: Self.values(newRuns, metric))))
            }
        }
        self.lines = lines
        unmatched = Set(base.cells.map(\.cell)).symmetricDifference(new.cells.map(\.cell)).map(\.name).sorted()
        verdicts = Self.verdicts(base: base, new: new)
    }

    static func values(_ runs: [ResultRun], _ metric: String) -> [Double] {
        runs.compactMap { $0.value(metric) }
    }

    static func mean(_ runs: [ResultRun], _ metric: String) -> Double? {
        let values = values(runs, metric)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// The verdict sentence of `cell` ("" for a cell not in both).
    func verdict(for cell: ResultCell) -> String { verdicts.first { $0.cell == cell }?.text ?? "" }

    /// A table per cell: metric, base, new, change and whether the change is beyond the noise,
    /// under the cell's verdict.
    public var text: String {
        var output = "base: \(base.path)\nnew:  \(new.path)\n"
        let width = max(6, lines.map(\.metric.count).max() ?? 0)
        var cell: ResultCell?
        for line in lines {
            if line.cell != cell {
                cell = line.cell
                output += "\n\(line.cell.name): \(verdict(for: line.cell))\n"
                output += "  " + "metric".padding(toLength: width, withPad: " ", startingAt: 0)
                    + "          base           new     change  beyond noise\n"
            }
            let change = Self.padLeft(line.relativeChange.map(Format.change) ?? "new", 9)
            output += "  " + line.metric.padding(toLength: width, withPad: " ", startingAt: 0)
                + " " + Self.padLeft(Format.compact(line.base), 13) + " " + Self.padLeft(Format.compact(line.new), 13)
                + " " + change + "  " + line.noise + "\n"
        }
        if !lines.isEmpty {
            output += "\nbeyond noise: Mann–Whitney over the repeats at α = \(Self.alpha) (\"?\": fewer than "
                + "\(MannWhitney.runsNeeded(alpha: Self.alpha)) runs a side cannot tell); each cell's verdict: "
                + "a paired t over the trace's segments of the two requests.csv\n"
        }
        if lines.isEmpty { output += "\nno strategy × concurrency cell is in both directories\n" }
        if !unmatched.isEmpty { output += "\nonly in one directory: \(unmatched.joined(separator: ", "))\n" }
        return output
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
