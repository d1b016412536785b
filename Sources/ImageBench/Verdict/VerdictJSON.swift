import Foundation

/// The verdict as summary.json gives it: what the terminal says, and the numbers behind it for
/// tools (each cell's placeholder-time mean with its single-run interval).
extension Verdict {
    static let method = "mean placeholder time (95% interval by batch means over \(SegmentMeans.segments) trace segments, Student's t, paired by segment), "
        + "or with --rank-by rest-wait mean wait at rest (the rows' mean wait for their images after the scroll stops, paired by rest) where every ranked cell had at least \(RestMeans.minimumRests) rests; "
        + "differences widened by run-to-run noise (at least 1% of each mean); ties broken by kB, then CPU, per displayed image, then by asking for less (a smaller limit, cache or prefetch); "
        + "each varied setting answered within the cells that differ only in it"

    var jsonObject: [String: Any] {
        func name(_ cell: Cell?) -> Any {
            cell.map { ["name": $0.name, "strategy": $0.strategy, "concurrency": $0.concurrency, "format": $0.format] as [String: Any] } ?? NSNull()
        }
        let cells: [[String: Any]] = self.cells.map { cell in
            let interval = cell.placeholder.interval
            return [
                // The name tells apart cells that differ only in a varied policy (`events ×4 cancel=none`).
                "name": cell.name, "strategy": cell.strategy, "concurrency": cell.concurrency, "format": cell.format,
                "validity": cell.validity == .valid ? "valid" : cell.validity == .control ? "control" : "invalid",
                "reason": { if case .invalid(let reason) = cell.validity { reason } else { NSNull() } }() as Any,
                "placeholder_mean_ms": cell.placeholder.overall,
                "placeholder_mean_ci_low": interval?.low ?? NSNull(), "placeholder_mean_ci_high": interval?.high ?? NSNull(),
                "segments": interval?.n ?? 0, "requests": cell.placeholder.requests,
                "bytes_per_displayed": cell.bytesPerImage, "cpu_s_per_displayed": cell.cpuPerImage,
                "rest_wait_mean_ms": cell.restWait?.overall ?? NSNull(), "rests": cell.restWait?.requests ?? 0,
                "rest_wait_mean_ci_low": cell.restWait?.interval?.low ?? NSNull(), "rest_wait_mean_ci_high": cell.restWait?.interval?.high ?? NSNull(),
            ]
        }
        // "recommended" only where the text recommends (better or cheaper beyond noise); "leader" is
        // the cell the lines lead with whatever the decision.
        let recommends = decision == .better || decision == .cheaper
        return ["recommended": recommends ? name(recommended) : NSNull(), "leader": name(recommended), "decision": decision?.rawValue ?? NSNull(),
                "ranked_by": rankedBy.rawValue, "knee": name(knee), "lines": lines, "method": Self.method, "cells": cells,
                "dimensions": answers.map(\.jsonObject)]
    }
}

extension SettingAnswer {
    /// One varied setting: its answer in each context, each other value's paired difference from
    /// the choice (the choice minus it, in ms of the ranked metric) and how it stands.
    var jsonObject: [String: Any] {
        [
            "setting": axis.name, "values": axis.values, "choice": settled ?? NSNull(), "line": line,
            "contexts": contexts.map { context -> [String: Any] in
                [
                    "context": context.name, "choice": context.choiceValue, "choice_cell": context.choice.name,
                    "decision": context.decision.rawValue,
                    "comparisons": context.comparisons.map { comparison -> [String: Any] in
                        [
                            "value": comparison.value, "relation": comparison.relation.rawValue,
                            "difference_ms": comparison.difference?.center ?? NSNull(),
                            "ci_low_ms": comparison.difference?.low ?? NSNull(), "ci_high_ms": comparison.difference?.high ?? NSNull(),
                            "pairs": comparison.difference?.n ?? 0,
                        ]
                    },
                ]
            },
        ]
    }
}
