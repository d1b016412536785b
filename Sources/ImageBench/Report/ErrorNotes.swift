import Foundation

/// Errors first: one line per cell that had any, for the terminal, report.md and report.html, each
/// with its HTTP error rate and its failed requests by status and class (`404 ×8250, timeout ×3`),
/// then the loads that failed after their bytes came (decode, unsupported). Empty when nothing
/// failed. A cell over `--max-error-rate` says it is not ranked (the verdict's first lines say why).
public struct ErrorNotes: Sendable {
    let lines: [String]

    public init(_ results: BenchmarkResults) {
        lines = results.atItsConfidence { RunResult.byCell(results.results).compactMap(Self.line) }
    }

    /// A cell's errors over its repeats (and users), or nil when it had none.
    static func line(_ runs: [RunResult]) -> String? {
        let total = ErrorTotals(runs.map(\.summary))
        let afterFetch = ErrorClass.decodeClasses.map { ($0, total.failedLoads[$0, default: 0]) }.filter { $0.1 > 0 }
        guard total.httpErrors.total > 0 || !afterFetch.isEmpty else { return nil }
        var line = "\(runs[0].cell.name): "
        if total.httpErrors.total > 0 {
            line += "\(Format.percent(total.rate)) of \(total.requests) HTTP requests failed: \(total.httpErrors.listing(limit: 6))"
        } else {
            line += "no HTTP request failed"
        }
        if !afterFetch.isEmpty {
            line += "; loads that failed after their bytes came: " + afterFetch.map { "\($0.0.rawValue) ×\($0.1)" }.joined(separator: ", ")
        }
        if total.rate > ErrorLimit.maxRate { line += " (over --max-error-rate \(ErrorLimit.percent(ErrorLimit.maxRate)): not ranked)" }
        return line + (line.hasSuffix("?") ? "" : ".")
    }

    public var text: String { lines.isEmpty ? "" : "HTTP errors:\n" + lines.map { "  " + $0 }.joined(separator: "\n") + "\n\n" }
    var markdown: String { lines.isEmpty ? "" : "## Errors\n\n" + lines.map { "- " + $0 }.joined(separator: "\n") + "\n\n" }
    var html: String {
        lines.isEmpty ? "" : "<h2>Errors</h2>\n<ul>\n" + lines.map { "<li>\(escape($0))</li>" }.joined(separator: "\n") + "\n</ul>\n"
    }
}

/// Several runs' errors added up: the rate over all their HTTP requests, not a mean of rates.
struct ErrorTotals {
    var httpErrors = HTTPErrorCounts()
    var requests = 0
    var failedLoads: [ErrorClass: Int] = [:]

    init(_ summaries: [RunSummary]) {
        for summary in summaries {
            httpErrors.add(summary.httpErrorsByStatus)
            requests += summary.httpRequests
            failedLoads.merge(summary.errorsByClass, uniquingKeysWith: +)
        }
    }

    var rate: Double { requests > 0 ? Double(httpErrors.total) / Double(requests) : 0 }
}

extension ErrorClass {
    /// The classes of a load whose HTTP request succeeded: its bytes failed to decode. (A
    /// `too_large` may be either: a body over --max-bytes is an HTTP failure, counted there.)
    static let decodeClasses: [ErrorClass] = [.decode, .unsupported]
}

extension BenchmarkResults {
    /// The line a run ends with when a cell's HTTP requests failed more often than
    /// `--max-error-rate`: how many cells, the worst one's rate and statuses. Nil otherwise.
    public var errorWarning: String? {
        atItsConfidence {
            let over = RunResult.byCell(results).map { runs in (runs[0].cell.name, ErrorTotals(runs.map(\.summary))) }
                .filter { $0.1.httpErrors.total > 0 && $0.1.rate > ErrorLimit.maxRate }
            guard let worst = over.max(by: { $0.1.rate < $1.1.rate }) else { return nil }
            let cells = RunResult.byCell(results).count
            return "warning: \(over.count) of \(cells) cell\(cells == 1 ? "" : "s") over --max-error-rate \(ErrorLimit.percent(ErrorLimit.maxRate)), "
                + "not ranked; worst \(worst.0): \(Format.percent(worst.1.rate)) of HTTP requests failed (\(worst.1.httpErrors.listing(limit: 3)))"
                + (ErrorLimit.hint(worst.1.httpErrors).map { ": \($0)" } ?? "")
        }
    }

    /// When no run displayed a single image though loads were made: why, for exit status 2. A
    /// source that stops answering after the preflight leaves no error (every load was cancelled
    /// as its row left), yet nothing was measured.
    public var nothingLoaded: String? {
        guard !partial, !results.isEmpty, results.allSatisfy({ $0.summary.displayed == 0 }) else { return nil }
        guard let first = results.lazy.flatMap(\.requests).first(where: { $0.outcome == .error }) else {
            let loads = results.reduce(0) { $0 + $1.summary.networkFetches }
            guard loads > 0 else { return nil }
            let cancelled = results.reduce(0) { $0 + $1.summary.cancelledQueued + $1.summary.cancelledInflight }
            return "no image could be loaded: \(loads) network loads, \(cancelled) cancelled as their rows left, none finished "
                + "(did the source stop answering?)"
        }
        // Counted as the load summary counts them: loads that failed, by class, and the HTTP
        // requests by status (a row merged into a failed load is not one more failure of either).
        let totals = ErrorTotals(results.map(\.summary))
        let loads = totals.failedLoads.sorted { $0.value > $1.value }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        let http = totals.httpErrors.total > 0 ? "; HTTP requests: \(totals.httpErrors.listing(limit: 3)) of \(totals.requests)" : ""
        return "no image could be loaded (failed loads: \(loads)\(http)); first: \(first.url): \(first.errorMessage ?? "?")"
    }
}
