/// Whether a run may be ranked, starred or recommended. A cell is left out of every conclusion,
/// with its reason, when it is the control, when most of its loads failed, when more of its HTTP
/// requests failed than `--max-error-rate` allows, when it was stopped early, or when the host
/// (not the app) set its frame times.
enum CellValidity: Sendable, Equatable, CustomStringConvertible {
    case valid
    /// The main-thread strategy: naive code's baseline, never a recommendation.
    case control
    case invalid(String)

    init(_ summary: RunSummary) {
        let failed = summary.errorsByClass.values.reduce(0, +)
        if summary.strategy == StrategyKind.mainThread.rawValue {
            self = .control
        } else if summary.partial {
            self = .invalid("stopped early")
        } else if summary.hostOverloaded {
            self = .invalid("host overloaded: the loop woke late on \(summary.hostLateFrames) frames")
        } else if failed > 0 && failed * 2 > failed + summary.imagesLoaded {
            self = .invalid("most loads failed (\(failed) of \(failed + summary.imagesLoaded))")
        } else if let reason = ErrorLimit.exceeded(by: summary) {
            self = .invalid(reason)
        } else if summary.requests > summary.memoryHits && summary.displayed == 0 {
            self = .invalid("no image was displayed")
        } else {
            self = .valid
        }
    }

    /// Every repeat of a cell must be valid for the cell to be (the first reason is given).
    init(_ summaries: [RunSummary]) {
        self = summaries.map(CellValidity.init).first { $0 != .valid } ?? .valid
    }

    var isValid: Bool { self == .valid }

    var description: String {
        switch self {
        case .valid: "valid"
        case .control: "control"
        case .invalid(let reason): "not ranked: \(reason)"
        }
    }
}

/// `--max-error-rate`: a cell whose HTTP requests failed more often than this is not ranked. A
/// strategy that is fast because its answers are 404s measured the errors, not the images. A
/// task-local value (as `Confidence.alpha` is), so the run's limit reaches every verdict, table
/// and finding that asks `CellValidity` without being passed through each of them.
enum ErrorLimit {
    static let standard = 0.01

    /// The default limit of a run whose embedded server injects `faults`: each injected fault is a
    /// failed request by design, so the limit sits 1% above their total.
    static func standard(faults: ServerFaults) -> Double { min(1, standard + faults.total) }
    @TaskLocal static var maxRate = standard

    /// Why `summary`'s errors keep it from being ranked, or nil: "45% of HTTP requests failed
    /// (404 ×8250; over --max-error-rate 1%): is the URL template right?"
    static func exceeded(by summary: RunSummary) -> String? {
        exceeded(ErrorTotals([summary]))
    }

    /// The same over several runs' errors added up (a cell's repeats).
    static func exceeded(_ totals: ErrorTotals) -> String? {
        guard totals.httpErrors.total > 0, totals.rate > maxRate else { return nil }
        return "\(percent(totals.rate)) of HTTP requests failed (\(totals.httpErrors.listing(limit: 3)); "
            + "over --max-error-rate \(percent(maxRate)))" + (hint(totals.httpErrors).map { ": \($0)" } ?? "")
    }

    /// "45%", "1.4%", "0.2%": a whole percent where that says it.
    static func percent(_ ratio: Double) -> String {
        let percent = ratio * 100
        return percent >= 10 || percent == percent.rounded() ? String(format: "%.0f%%", percent) : String(format: "%.1f%%", percent)
    }

    /// What the commonest failure usually means.
    static func hint(_ counts: HTTPErrorCounts) -> String? {
        switch counts.ranked.first?.failure {
        case .status(404), .status(410): "is the URL template right?"
        case .status(401), .status(403): "does the server need credentials?"
        case .status(429): "the server is rate-limiting"
        case .status(let status) where status >= 500: "is the server overloaded or failing?"
        case .failure(.timeout): "is --timeout long enough for this server?"
        case .failure(.connection): "is the server up, and can it take this many connections?"
        case .failure(.tooLarge): "is --max-bytes too small for these images?"
        default: nil
        }
    }
}
