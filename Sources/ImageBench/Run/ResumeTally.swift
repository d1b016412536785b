/// `--resume`: what resuming saved. Bytes a cancelled transfer received and a later one reused
/// were not wasted after all: they are taken off `bytes_wasted` and counted here instead.
struct ResumeTally {
    var bytes = 0, loads = 0, refused = 0

    mutating func account(_ completion: LoadCompletion) {
        bytes += completion.resumedBytes
        if completion.resumedBytes > 0 { loads += 1 }
        if completion.resumeRefused { refused += 1 }
    }

    func fill(_ summary: inout RunSummary) {
        summary.bytesResumed = bytes
        summary.resumedLoads = loads
        summary.resumesRefused = refused
        summary.bytesWasted = max(0, summary.bytesWasted - bytes)
    }
}
