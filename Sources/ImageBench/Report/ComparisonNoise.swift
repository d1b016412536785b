import Foundation

/// What `compare` says beyond the relative change: for each cell both directories have, whether
/// mean placeholder time moved beyond the noise (a paired t over the trace's segments, from the
/// two requests.csv: the same configuration scrolls the same trace), and for each metric whether
/// its repeats differ (Mann–Whitney at α = 0.05, which needs four runs a side to ever say so).
extension ResultsComparison {
    static let alpha = 0.05

    /// One cell's verdict in a sentence, with the interval it rests on.
    struct CellVerdict: Sendable, Equatable {
        let cell: ResultCell
        let change: Interval?
        let text: String
    }

    /// "worse", "better", "same" (the repeats do not differ) or "?" (too few runs to tell); empty
    /// for a metric with no better direction.
    static func noise(_ metric: String, before: [Double], after: [Double]) -> String {
        guard let better = Metric.named(metric)?.better else { return "" }
        guard !before.isEmpty, !after.isEmpty, MannWhitney.smallestPValue(after.count, before.count) < Self.alpha else { return "?" }
        let test = MannWhitney.test(after, before)
        guard test.pValue < Self.alpha else { return "same" }
        return (test.cliffsDelta > 0) == (better == .higherIsBetter) ? "better" : "worse"
    }

    /// A verdict for every cell both directories have, in the base's order.
    static func verdicts(base: ResultsDirectory, new: ResultsDirectory) -> [CellVerdict] {
        let frames = Self.traceFrames(base.path)
        let (before, after) = (Self.placeholderSamples(base.path), Self.placeholderSamples(new.path))
        let shared = base.cells.map(\.cell).filter { cell in new.cells.contains { $0.cell == cell } }
        return shared.map { cell in
            if let reason = [("base", base), ("new", new)].lazy.compactMap({ side, directory in
                Self.invalidity(directory, cell).map { "\(side): \($0)" } }).first {
                return CellVerdict(cell: cell, change: nil, text: "could not measure: \(reason)")
            }
            guard let frames, let old = before?[cell.name], let current = after?[cell.name] else {
                return CellVerdict(cell: cell, change: nil, text: "could not measure placeholder time: a requests.csv or the trace length is missing")
            }
            let (was, now) = (SegmentMeans(old, traceFrames: frames), SegmentMeans(current, traceFrames: frames))
            guard let change = now.difference(from: was) else {
                return CellVerdict(cell: cell, change: nil, text: "could not measure: fewer than two trace segments in both")
            }
            let numbers = String(format: "mean placeholder time %.1f → %.1f ms (n = %d → %d requests), %+.1f ms, 95%% CI %+.1f to %+.1f ms "
                                 + "(paired t over %d trace segments, with run-to-run noise)", was.overall, now.overall, was.requests, now.requests,
                                 change.center, change.low, change.high, change.n)
            let word = change.includesZero ? "a tie within noise" : change.low > 0 ? "SLOWER beyond noise" : "faster beyond noise"
            return CellVerdict(cell: cell, change: change, text: "\(word): \(numbers)")
        }
    }

    /// Why a cell of a directory may not be compared (control, failed, overloaded, partial), or nil.
    static func invalidity(_ directory: ResultsDirectory, _ cell: ResultCell) -> String? {
        guard let runs = directory.cells.first(where: { $0.cell == cell })?.runs,
              let summaries = try? runs.map({ run throws(RunSummary.RowError) in try run.summary() }) else { return nil }
        switch CellValidity(summaries) {
        case .valid: return nil
        case .control: return "the control"
        case .invalid(let reason): return reason
        }
    }

    /// The trace's length in frames, from summary.json.
    static func traceFrames(_ directory: String) -> Int? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(SummaryJSON.fileName)),
              let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let seconds = (document["workload"] as? [String: Any])?["trace_seconds"] as? Double,
              let fps = (document["configuration"] as? [String: Any])?["fps"] as? Int else { return nil }
        return Int((seconds * Double(fps)).rounded())
    }

    /// Every request's placeholder time by cell, from requests.csv; nil without one.
    static func placeholderSamples(_ directory: String) -> [String: [SegmentMeans.Sample]]? {
        guard let text = try? String(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(RequestsCSV.fileName), encoding: .utf8)
        else { return nil }
        let rows = CSVTable.parse(text)
        guard let header = rows.first else { return nil }
        let column = { (name: String) in header.firstIndex(of: name) }
        guard let strategy = column("strategy"), let limit = column("concurrency"), let repetition = column("repeat"),
              let frame = column("visible_frame"), let placeholder = column("placeholder_ms") else { return nil }
        // Files written before --formats have no format column: their cells are the mix's.
        let format = column("format")
        var samples: [String: [SegmentMeans.Sample]] = [:]
        for row in rows.dropFirst() where row.count == header.count {
            guard let repeatIndex = Int(row[repetition]), let visible = Int(row[frame]), let milliseconds = Double(row[placeholder]) else { continue }
            samples[CellName.of(strategy: row[strategy], concurrency: row[limit], format: format.map { row[$0] } ?? ""), default: []].append(
                SegmentMeans.Sample(repetition: repeatIndex, visibleFrame: visible, milliseconds: milliseconds))
        }
        return samples
    }
}
