/// Whether a run may be ranked, starred or recommended. A cell is left out of every conclusion,
/// with its reason, when it is the control, when most of its loads failed, when it was stopped
/// early, or when the host (not the app) set its frame times.
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
