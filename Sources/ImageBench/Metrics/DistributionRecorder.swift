import Histogram

/// Where a run records its distributions and their second-by-second series as it goes: a user's
/// own, or a crowd's (users stepped on one thread record once, into one, at three digits; each
/// user keeps only what clients.csv needs). Injected into each user's tally (`RunTally`), so
/// recording has one path whichever it is. Owned by the thread that steps the run (or crowd).
final class DistributionRecorder {
    var all: RunDistributions
    /// Display latency and time to first byte per second (a crowd user's own series keep its
    /// counts).
    var timeline = Timeline()

    /// nil: the reported precision (three digits); `.two`, a crowd user's own.
    init(significantDigits: SignificantDigits? = nil) {
        all = significantDigits.map { RunDistributions(significantDigits: $0) } ?? RunDistributions()
    }
}
