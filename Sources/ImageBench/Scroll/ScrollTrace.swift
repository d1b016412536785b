/// One frame of a scroll trace: where the content is and whether a finger is on the screen.
struct ScrollFrame: Sendable, Equatable, Codable {
    var offset: Double
    var dragging: Bool
}

/// The named gesture mixes a trace can be generated from.
enum ScrollProfile: String, Sendable, Codable, CaseIterable {
    /// Repeated fast flings from top to bottom, each launched before the last one settles, with
    /// an occasional stop to look: covers every row quickly (5,000 rows in 35–40 s), the
    /// stress case for cancellation.
    case fling
    /// Reading: slow drags, gentle flings that come to rest, long dwells, now and then a short
    /// scroll back; lasts a minute (or to the end of the feed).
    case browse
    /// Up and down over the same stretch: fling down 30–80 rows, back up most of the way, and
    /// again, creeping forward; lasts 40 s (or to the end). The case memory caches are for.
    case revisit
}

/// The scroll position at every frame of a run, generated from a seed before the run starts, so
/// every strategy scrolls exactly the same way (fair by construction).
struct ScrollTrace: Sendable, Equatable {
    let fps: Int
    let frames: [ScrollFrame]

    var duration: Double { Double(frames.count) / Double(fps) }

    init(fps: Int, frames: [ScrollFrame]) {
        self.fps = fps
        self.frames = frames
    }

    static func generate(profile: ScrollProfile, viewport: Viewport, fps: Int, seed: UInt64) -> ScrollTrace {
        var random = SeededRandom(seed: seed, stream: "scroll.\(profile.rawValue)")
        var physics = ScrollPhysics(frameMilliseconds: 1000 / Double(fps), viewport: viewport)
        switch profile {
        case .fling:
            // Stops come every 600–1000 rows rather than at random, so a trace's length depends
            // little on the seed: 5,000 rows take 35–40 s whatever the seed.
            func rowsToNextStop() -> Double { (600 + random.unit() * 400) * viewport.rowHeight }
            var nextStop = rowsToNextStop()
            // The app opens on the first screen; the user starts scrolling half a second later.
            physics.dwell(milliseconds: 500)
            while !physics.atEnd {
                // Finger down: a short drag that carries what speed the content still had.
                let dragSpeed = max(physics.velocity, 2 + random.unit() * 4)
                physics.drag(speed: dragSpeed, milliseconds: 60 + random.unit() * 80)
                // Release: a flick adds to the speed, as UIScrollView accumulates repeated flings.
                let release = min(physics.velocityLimit, physics.velocity + 8 + random.unit() * 8)
                if physics.offset >= nextStop {
                    // Let it glide down to reading speed, stop it, and read a moment.
                    nextStop = physics.offset + rowsToNextStop()
                    physics.fling(velocity: release, until: 0.5)
                    physics.dwell(milliseconds: 300 + random.unit() * 900)
                } else {
                    // Flick again while it still flies: the feed streams by at 10–16 pt/ms.
                    physics.fling(velocity: release, until: 10 + random.unit() * 6)
                }
            }
        case .browse:
            physics.dwell(milliseconds: 500)
            while !physics.atEnd && physics.elapsedMilliseconds < 60_000 {
                physics.drag(speed: 0.3 + random.unit() * 0.7, milliseconds: 400 + random.unit() * 800)
                if random.unit() < 0.5 {
                    physics.fling(velocity: 1 + random.unit() * 2, until: 0.02)
                }
                physics.dwell(milliseconds: 800 + random.unit() * 2_200)
                if random.unit() < 0.1 {
                    // Back up to look at something again.
                    let rows = 3 + random.unit() * 10
                    physics.drag(speed: 0.8, milliseconds: 200, direction: -1)
                    physics.fling(velocity: ScrollPhysics.velocity(toTravel: rows * viewport.rowHeight), until: 0.02,
                                  direction: -1)
                    physics.dwell(milliseconds: 600 + random.unit() * 1_000)
                }
            }
        case .revisit:
            physics.dwell(milliseconds: 500)
            while !physics.atEnd && physics.elapsedMilliseconds < 40_000 {
                let down = 30 + random.unit() * 50
                physics.drag(speed: 2, milliseconds: 80)
                physics.fling(velocity: ScrollPhysics.velocity(toTravel: down * viewport.rowHeight), until: 0.05)
                physics.dwell(milliseconds: 200 + random.unit() * 500)
                let up = down * (0.5 + random.unit() * 0.4)
                physics.drag(speed: 2, milliseconds: 80, direction: -1)
                physics.fling(velocity: ScrollPhysics.velocity(toTravel: up * viewport.rowHeight), until: 0.05,
                              direction: -1)
                physics.dwell(milliseconds: 200 + random.unit() * 500)
            }
        }
        return ScrollTrace(fps: fps, frames: physics.frames)
    }
}
