import Foundation

/// The verdict as summary.json gives it: what the terminal says, and the numbers behind it for
/// tools (each cell's placeholder-time mean with its single-run interval).
extension Verdict {
    static let method = "mean wait at rest (the rows' mean wait for their images after the scroll stops) where every ranked cell had at least \(RestMeans.minimumRests) rests (paired by rest), "
        + "else mean placeholder time (95% interval by batch means over \(SegmentMeans.segments) trace segments, Student's t, paired by segment); "
        + "differences widened by run-to-run noise (at least 1% of each mean); ties broken by kB, then CPU, per displayed image"

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
        // "recommended" is the leading cell; "decision" says whether it is recommended (better or
        // cheaper beyond noise), tied, undecided or alone.
        return ["recommended": name(recommended), "decision": decision?.rawValue ?? NSNull(), "ranked_by": rankedBy.rawValue, "knee": name(knee), "lines": lines, "method": Self.method, "cells": cells]
    }
}
