/// One rest's settle time: from the frame the scroll came to rest to the frame every visible row
/// showed its final image. `censored`: the scroll moved again first (or the run ended), so the
/// time is the rest's length, a lower bound; a row whose load failed never settles.
struct SettleSample: Sendable, Codable, Equatable {
    /// Which rest: the user (`--clients`), the session (load models loop their traces) and the
    /// rest's place in that trace. Cells of a run share traces, so equal keys are the same moment
    /// of the same scroll, and their samples pair.
    let client: Int
    let session: Int
    let rest: Int
    let nanoseconds: UInt64
    let censored: Bool
    /// The mean wait of the rows on screen at the rest: from its start to each row's image (0 for
    /// one already shown), cut at the rest's end. Unlike the settle time (the last row's wait) it
    /// still tells cells apart when neither settles before the scroll moves on.
    var waitNanoseconds: UInt64 = 0

    var key: String { "\(client).\(session).\(rest)" }
}

/// Watches the screen through each rest of the trace under way; owned by the main loop.
struct SettleTracker {
    private var rests: [ScrollRest] = []
    private var next = 0
    /// The rest being watched: its index, its first and last frames (run frames), the rows on
    /// screen, and the row-frames they waited so far (to `last`, with `waiting` rows then).
    private var open: (rest: Int, start: Int, end: Int?, rows: Int, rowFrames: Int, last: Int, waiting: Int)?
    private var client = 0, session = 0
    private(set) var samples: [SettleSample] = []

    /// A trace begins (the run's, or a looping user's next session).
    mutating func begin(_ trace: ScrollTrace, client: Int, session: Int, frameNanoseconds: UInt64, at frame: Int) {
        end(at: frame, frameNanoseconds: frameNanoseconds)
        (rests, next, self.client, self.session) = (trace.rests, 0, client, session)
    }

    /// After the main loop's frame `frame` (trace frame `frame - base`), with `waiting` of the
    /// `visible` rows still without their image.
    mutating func frame(_ frame: Int, base: Int, waiting: Int, visible: Int, frameNanoseconds: UInt64) {
        if var watched = open {
            // The screen of the last frame stayed up until this one (or until the rest ended).
            let until = watched.end.map { min($0, frame) } ?? frame
            watched.rowFrames += watched.waiting * max(0, until - watched.last)
            (watched.last, watched.waiting) = (until, waiting)
            open = watched
            // The rest's end first: a frame at or past it shows a screen that moved again (or a
            // host that woke late past it), so what it shows says nothing of the rest.
            if let end = watched.end, frame >= end {
                close(frames: end - watched.start, censored: true, frameNanoseconds)
            } else if waiting == 0 {
                close(frames: frame - watched.start, censored: false, frameNanoseconds)
            }
        }
        while next < rests.count, rests[next].start <= frame - base {
            let rest = rests[next], index = next
            next += 1
            let start = base + rest.start, end = rest.end.map { base + $0 }
            open = (index, start, end, max(1, visible), 0, frame, waiting)
            if let end, frame >= end {
                // A host that woke the loop late skipped the whole rest: counted, as unwatched.
                open?.rowFrames = waiting * (end - start)
                close(frames: end - start, censored: true, frameNanoseconds)
            } else {
                // Frames of the rest already past when the loop saw it waited as this one does.
                open?.rowFrames = waiting * (frame - start)
                if waiting == 0 { close(frames: frame - start, censored: false, frameNanoseconds) }
            }
        }
    }

    /// The run (or the session) is over at `frame`: a rest still watched is censored there.
    mutating func end(at frame: Int, frameNanoseconds: UInt64) {
        guard var watched = open else { return }
        watched.rowFrames += watched.waiting * max(0, frame - watched.last)
        open = watched
        close(frames: max(0, frame - watched.start), censored: true, frameNanoseconds)
    }

    private mutating func close(frames: Int, censored: Bool, _ frameNanoseconds: UInt64) {
        guard let watched = open else { return }
        open = nil
        var sample = SettleSample(client: client, session: session, rest: watched.rest,
                                  nanoseconds: UInt64(max(0, frames)) * frameNanoseconds, censored: censored)
        sample.waitNanoseconds = UInt64(watched.rowFrames) * frameNanoseconds / UInt64(watched.rows)
        samples.append(sample)
    }
}

extension RunDistributions {
    /// The summary's settle fields from the samples: rests, censored ones, settle time's
    /// statistics, and the mean wait at rest.
    /// Censored rests count at their length (a lower bound): a cell cannot look fast by never
    /// settling.
    func fillSettle(_ summary: inout RunSummary) {
        guard !settleSamples.isEmpty else { return }
        summary.settleRests = settleSamples.count
        summary.settleCensored = settleSamples.count { $0.censored }
        Metric.settle.fill(&summary, from: settle)
        summary.restWait.mean = Double(settleSamples.reduce(0) { $0 + $1.waitNanoseconds }) / Double(settleSamples.count) / 1e6
    }
}
