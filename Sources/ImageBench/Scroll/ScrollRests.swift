/// A moment the scroll comes to rest: from `start` (a frame of the trace) to `end`, the frame the
/// content moves again (nil: the trace's end, after which the run waits for the screen to
/// settle). What the user waits through here is what a fling's placeholder time cannot show: a
/// row that flies by is capped at its few frames on screen, a row the user stopped on is not.
struct ScrollRest: Sendable, Equatable {
    let start: Int
    let end: Int?
}

extension ScrollTrace {
    /// Content slower than this counts as still: 0.02 pt/ms (20 pt/s, under a quarter of an
    /// 88 pt row a second), where UIScrollView's deceleration is all but over.
    static let restSpeed = 0.02
    /// It must stay still this long (and no finger down) to be a rest: 100 ms, six frames at 60 Hz,
    /// so a fling's last few slow frames before the next flick are not rests.
    static let restMilliseconds = 100.0

    /// Every rest, in order. The app's first screen is one (the trace opens still), and the trace's
    /// end is the last: the content moves no more after it.
    var rests: [ScrollRest] {
        guard !frames.isEmpty else { return [] }
        let frameMilliseconds = 1000 / Double(fps)
        let needed = max(1, Int((Self.restMilliseconds / frameMilliseconds).rounded(.up)))
        var rests: [ScrollRest] = []
        var stillSince: Int?
        for index in frames.indices {
            let speed = index == 0 ? 0 : abs(frames[index].offset - frames[index - 1].offset) / frameMilliseconds
            let still = !frames[index].dragging && speed < Self.restSpeed
            if still {
                if stillSince == nil { stillSince = index }
            } else {
                if let since = stillSince, index - since >= needed { rests.append(ScrollRest(start: since, end: index)) }
                stillSince = nil
            }
        }
        // The trace's end: still from the last movement on, or (ended moving) from its last frame.
        rests.append(ScrollRest(start: stillSince ?? frames.count, end: nil))
        return rests
    }
}
