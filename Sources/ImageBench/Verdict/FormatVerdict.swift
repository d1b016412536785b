import Foundation

/// With `--formats`: how the formats compare at the recommended strategy and limit on this
/// network, and what the recommended one costs. It speaks of the recommended cell's format (so it
/// never contradicts the recommendation) and compares every other format with it by the main
/// verdict's rules: a paired difference whose interval excludes zero is slower (or faster); one
/// within the tie margin is a tie; anything else is undecided, all on the metric the verdict ranks
/// by (wait at rest or placeholder time). A format is said to give the least of it only when every
/// other one is shown slower, and only cells with the recommended cell's policies are compared.
extension Verdict {
    static func formatLines(best: Cell, all: [Cell]) -> [String] {
        guard Set(all.map(\.format)).count > 1 else { return [] }
        let cell = "\(best.strategy) ×\(best.concurrency)"
        let formats = all.filter { $0.strategy == best.strategy && $0.concurrency == best.concurrency && $0.variant == best.variant
            && $0.validity.isValid }
            .sorted { $0.ranking.overall < $1.ranking.overall }
        let others = formats.filter { $0.format != best.format }
        guard !others.isEmpty else { return ["Formats: only \(best.format) could be ranked at \(cell)."] }
        // Each other format against the chosen one: the difference's interval and what it shows.
        let judged = others.map { other -> (cell: Cell, difference: Interval?, call: String) in
            let difference = other.ranking.difference(from: best.ranking)
            if equivalent(best, other) { return (other, difference, String(format: "a tie within ±%.1f ms", tieMargin(best))) }
            guard let difference else { return (other, nil, "not comparable") }
            return (other, difference, difference.includesZero ? "undecided" : difference.low > 0 ? "slower" : "faster")
        }
        let calls = judged.map(\.call)
        let comparisons = judged.map { "\($0.cell.format) \(ms($0.cell.ranking.overall)) "
            + "(\($0.difference.map(signed) ?? "no interval"): \($0.call))" }.joined(separator: "; ")
        let head: String
        if calls.allSatisfy({ $0 == "slower" }) {
            head = "Format: \(best.format) gives the least \(best.rankedBy.rawValue) at \(cell), \(estimate(best)); "
        } else if calls.contains(where: { $0.hasPrefix("a tie") }) {
            head = "Format: \(best.format) at \(cell), \(estimate(best)), ties with another format and is chosen "
                + "as the verdict chooses (the least \(best.rankedBy.rawValue), ties broken by bytes, then CPU, per displayed image); "
        } else if !calls.contains("slower") {
            head = "Format: \(best.format) has the lowest mean \(best.rankedBy.rawValue) at \(cell), \(estimate(best)), "
                + "but no other format is shown slower (more runs can tell): "
        } else {
            head = "Format: \(best.format) has the lowest mean \(best.rankedBy.rawValue) at \(cell), \(estimate(best)), "
                + "shown faster than some formats only: "
        }
        return [head + comparisons + costs(best, formats)]
    }

    /// What the chosen format costs against JPEG's (CPU per displayed image within its noise is
    /// "about the same"), then every format's CPU and bytes per displayed image.
    static func costs(_ chosen: Cell, _ formats: [Cell]) -> String {
        var text = "."
        if let jpeg = formats.first(where: { $0.format == ImageFormat.jpeg.rawValue }), chosen.format != jpeg.format, jpeg.cpuPerImage > 0 {
            let ratio = chosen.cpuPerImage / jpeg.cpuPerImage
            text = CostNoise.compare(chosen.cpuPerRun, jpeg.cpuPerRun, tolerance: cpuTolerance) == 0
                ? String(format: ". %@ costs %.2f ms CPU per displayed image, about JPEG's %.2f ms (within the CPU's noise)",
                         chosen.format, chosen.cpuPerImage * 1e3, jpeg.cpuPerImage * 1e3)
                : String(format: ". %@ costs %.2f ms CPU per displayed image, %.1f× JPEG's %.2f ms", chosen.format,
                         chosen.cpuPerImage * 1e3, ratio, jpeg.cpuPerImage * 1e3)
            if chosen.decodeMsPerMp > 0 && jpeg.decodeMsPerMp > 0 {
                text += String(format: ", and decodes at %.1f ms per megapixel (p50), %.1f× JPEG's %.1f", chosen.decodeMsPerMp,
                               chosen.decodeMsPerMp / jpeg.decodeMsPerMp, jpeg.decodeMsPerMp)
            }
            text += "."
        }
        let cpu = formats.map { "\($0.format) \(String(format: "%.2f", $0.cpuPerImage * 1e3)) ms" }.joined(separator: ", ")
        let bytes = formats.map { "\($0.format) \(String(format: "%.1f", $0.bytesPerImage / 1e3)) kB" }.joined(separator: ", ")
        return text + " CPU per displayed image (the process's): \(cpu); downloaded per displayed image: \(bytes)."
    }
}
