import Foundation

/// With `--formats`: which format shows images soonest for the recommended strategy and limit on
/// this network, and what it costs. The same rules as the main verdict: a format is named faster
/// only where the difference's interval excludes zero; within the tie margin it is a tie, and
/// then the cheaper in CPU per displayed image is named, if the CPU differs beyond its noise.
extension Verdict {
    static func formatLines(best: Cell, all: [Cell]) -> [String] {
        let formats = all.filter { $0.strategy == best.strategy && $0.concurrency == best.concurrency && $0.validity.isValid }
            .sorted { $0.placeholder.overall < $1.placeholder.overall }
        guard Set(all.map(\.format)).count > 1 else { return [] }
        guard let fastest = formats.first, formats.count > 1 else {
            return ["Formats: only \(formats.first?.format ?? "none") could be ranked at \(best.strategy) ×\(best.concurrency)."]
        }
        let tied = formats.dropFirst().filter { equivalent(fastest, $0) }
        var comparisons: [String] = []
        for other in formats.dropFirst() {
            let difference = other.placeholder.difference(from: fastest.placeholder)
            let verdict: String
            if tied.contains(where: { $0.format == other.format }) {
                verdict = String(format: "a tie within ±%.1f ms", tieMargin(fastest))
            } else if let difference, !difference.includesZero {
                verdict = "slower"
            } else {
                verdict = difference == nil ? "not comparable" : "undecided"
            }
            comparisons.append("\(other.format) \(ms(other.placeholder.overall)) (\(difference.map(signed) ?? "no interval"): \(verdict))")
        }
        let cpu = formats.map { "\($0.format) \(String(format: "%.2f", $0.cpuPerImage * 1e3)) ms" }.joined(separator: ", ")
        let bytes = formats.map { "\($0.format) \(String(format: "%.1f", $0.bytesPerImage / 1e3)) kB" }.joined(separator: ", ")
        var head: String
        if tied.isEmpty {
            head = "Format: \(fastest.format) gives the least placeholder time at \(best.strategy) ×\(best.concurrency), "
                + "\(estimate(fastest.placeholder))"
        } else {
            // Tied formats: the cheaper in CPU, where CPU differs beyond its noise, else the faster mean.
            let pick = tied.reduce(fastest) { pick, cell in cheaperInCPU(cell, than: pick) ? cell : pick }
            head = "Format: \(([fastest] + tied).map(\.format).joined(separator: " and ")) tie on placeholder time at "
                + "\(best.strategy) ×\(best.concurrency); \(pick.format) "
                + (pick.format == fastest.format ? "has the faster mean" : "costs less CPU") + ", \(estimate(pick.placeholder))"
        }
        return [head + "; " + comparisons.joined(separator: "; ") + ". CPU per displayed image: \(cpu); downloaded per displayed image: \(bytes)."]
    }

    /// Less CPU per displayed image beyond the CPU's noise (`cpuTolerance`).
    static func cheaperInCPU(_ cell: Cell, than other: Cell) -> Bool {
        abs(cell.cpuPerImage - other.cpuPerImage) > cpuTolerance * max(cell.cpuPerImage, other.cpuPerImage)
            && cell.cpuPerImage < other.cpuPerImage
    }
}
