import Foundation

/// With `--progressive` or `--resume`: one line per cell on what the feature did, for the
/// terminal, report.md and report.html. Empty without them.
public struct PipelineNotes: Sendable {
    let lines: [String]

    public init(_ results: BenchmarkResults) {
        let settings = results.plan.settings
        var lines: [String] = []
        func ms(_ value: Double) -> String { String(format: "%.0f ms", value) }
        for runs in RunResult.byCell(results.results) {
            let name = runs[0].cell.name
            func sum(_ value: (RunSummary) -> Double) -> Double { runs.reduce(0) { $0 + value($1.summary) } }
            if settings.progressive == true {
                var first = LatencyHistogram(), display = LatencyHistogram()
                for run in runs { first.add(run.distributions.firstImage); display.add(run.latency) }
                let previewed = runs.flatMap(\.requests).filter { $0.previewFrame != nil && $0.latency != nil }
                let frame = 1_000.0 / Double(settings.fps)
                let previewTimes = previewed.map { Double($0.previewFrame! - $0.visibleFrame) * frame }.sorted()
                let theirDisplay = previewed.map { Double($0.latency!) / 1e6 }.sorted()
                let median = { (values: [Double]) in values.isEmpty ? 0 : values[values.count / 2] }
                lines.append("\(name): progressive: \(Int(sum { Double($0.previewsShown) })) requests showed a preview first "
                    + "(preview p50 \(ms(median(previewTimes))) vs their image's p50 \(ms(median(theirDisplay)))); "
                    + "time to first image p50 \(ms(first.milliseconds(atPercentile: 50))) vs display latency p50 "
                    + "\(ms(display.milliseconds(atPercentile: 50))); previews cost \(Int(sum { Double($0.previewDecodes) })) decodes, "
                    + String(format: "%.1f ms", sum(\.previewDecodeMs)) + ".")
            }
            if settings.resume == true {
                lines.append("\(name): resume: \(Int(sum { Double($0.resumedLoads) })) loads resumed, "
                    + Format.megabytes(sum { Double($0.bytesResumed) }) + " MB not downloaded again (beside "
                    + Format.megabytes(sum { Double($0.bytesSaved) }) + " MB cancelling saved); "
                    + "\(Int(sum { Double($0.resumesRefused) })) ranges answered with the whole body.")
            }
        }
        self.lines = lines
    }

    public var text: String { lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n\n" }
    var markdown: String { lines.isEmpty ? "" : "## Pipeline\n\n" + lines.map { "- " + $0 }.joined(separator: "\n") + "\n\n" }
    var html: String {
        lines.isEmpty ? "" : "<h2>Pipeline</h2>\n<ul>\n" + lines.map { "<li>\(escape($0))</li>" }.joined(separator: "\n") + "\n</ul>\n"
    }
}
