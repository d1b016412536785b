import Foundation

/// With `--formats`: which format shows images soonest for the recommended strategy and limit on
/// this network, and what it costs. The same rules as the main verdict: a format is named faster
/// only where the difference's interval excludes zero; within the tie margin it is a tie, broken
/// as the main verdict breaks ties (fewer bytes, then less CPU, per displayed image, beyond their
/// noise). The chosen format's CPU per displayed image is set against JPEG's.
extension Verdict {
    static func formatLines(best: Cell, all: [Cell]) -> [String] {
        let formats = all.filter { $0.strategy == best.strategy && $0.concurrency == best.concurrency && $0.validity.isValid }
            .sorted { $0.placeholder.overall < $1.placeholder.overall }
        guard Set(all.map(\.format)).count > 1 else { return [] }
        guard let fastest = formats.first, formats.count > 1 else {
            return ["Formats: only \(formats.first?.format ?? "none") could be ranked at \(best.strategy) ×\(best.concurrency)."]
        }
        let tied = formats.dropFirst().filter { equivalent(fastest, $0) }
        // Every other format against the fastest: its mean, the difference's interval, the call.
        let comparisons = formats.dropFirst().map { other in
            let difference = other.placeholder.difference(from: fastest.placeholder)
            let call: String
            if tied.contains(where: { $0.format == other.format }) {
                call = String(format: "a tie within ±%.1f ms", tieMargin(fastest))
            } else if let difference {
                call = difference.includesZero ? "undecided" : "slower"
            } else {
                call = "not comparable"
            }
            return "\(other.format) \(ms(other.placeholder.overall)) (\(difference.map(signed) ?? "no interval"): \(call))"
        }
        let cpu = formats.map { "\($0.format) \(String(format: "%.2f", $0.cpuPerImage * 1e3)) ms" }.joined(separator: ", ")
        let bytes = formats.map { "\($0.format) \(String(format: "%.1f", $0.bytesPerImage / 1e3)) kB" }.joined(separator: ", ")
        let cell = "\(best.strategy) ×\(best.concurrency)"
        // Tied formats are chosen between as the main verdict chooses between tied cells: fewer
        // bytes per displayed image, then less CPU, each beyond its noise; else the faster mean.
        let pick = tied.reduce(fastest) { pick, other in cheaper(other, than: pick) ? other : pick }
        var text: String
        if tied.isEmpty && !comparisons.contains(where: { $0.hasSuffix(": slower)") }) {
            // Nothing shown slower: the lowest mean, said as no more than that.
            text = "Format: \(fastest.format) has the lowest mean placeholder time at \(cell), \(estimate(fastest.placeholder)), "
                + "but no other format is shown slower (more runs can tell): " + comparisons.joined(separator: "; ")
        } else if tied.isEmpty {
            text = "Format: \(fastest.format) gives the least placeholder time at \(cell), \(estimate(fastest.placeholder)); "
                + comparisons.joined(separator: "; ")
        } else {
            text = "Format: \(([fastest] + tied).map(\.format).joined(separator: " and ")) tie on placeholder time at \(cell): "
                + "\(fastest.format) \(estimate(fastest.placeholder)); " + comparisons.joined(separator: "; ") + "; "
                + (pick.format == fastest.format ? "\(pick.format) has the faster mean and costs no less beyond noise"
                                                 : "\(pick.format) is chosen by cost")
        }
        var cost = "."
        if let jpeg = formats.first(where: { $0.format == ImageFormat.jpeg.rawValue }), pick.format != jpeg.format, jpeg.cpuPerImage > 0 {
            cost = String(format: ". %@ costs %.2f ms CPU per displayed image, %.1f× JPEG's %.2f ms", pick.format,
                          pick.cpuPerImage * 1e3, pick.cpuPerImage / jpeg.cpuPerImage, jpeg.cpuPerImage * 1e3)
            if pick.decodeMsPerMp > 0 && jpeg.decodeMsPerMp > 0 {
                cost += String(format: ", and decodes at %.1f ms per megapixel (p50), %.1f× JPEG's %.1f", pick.decodeMsPerMp,
                               pick.decodeMsPerMp / jpeg.decodeMsPerMp, jpeg.decodeMsPerMp)
            }
            cost += "."
        }
        return [text + cost
                + " CPU per displayed image: \(cpu); downloaded per displayed image: \(bytes)."]
    }
}
