import Foundation

/// UIScrollView-style motion sampled once per frame. Velocities are in points per millisecond
/// (a speed; `direction` says which way); a fling decays by `decelerationRate` every millisecond
/// (0.998, UIKit's `.normal`), so over a frame of `t` ms it moves `v·(r^t − 1)/ln r` points and
/// leaves with velocity `v·r^t`.
struct ScrollPhysics {
    static let decelerationRate = 0.998
    /// 30 pt/ms (30,000 pt/s), the fastest a flung feed moves.
    static let maxVelocity = 30.0

    let frameMilliseconds: Double
    let viewport: Viewport
    /// The speed limit for this frame rate: `maxVelocity`, or less where one frame's jump would
    /// approach a screen, so every row passing by is on screen for at least one frame.
    let velocityLimit: Double
    private(set) var frames: [ScrollFrame] = []
    private(set) var offset = 0.0
    private(set) var velocity = 0.0

    init(frameMilliseconds: Double, viewport: Viewport) {
        self.frameMilliseconds = frameMilliseconds
        self.viewport = viewport
        velocityLimit = min(Self.maxVelocity, 0.95 * viewport.height / frameMilliseconds)
    }

    var atEnd: Bool { offset >= viewport.maxOffset }
    var atTop: Bool { offset <= 0 }
    var elapsedMilliseconds: Double { Double(frames.count) * frameMilliseconds }

    /// The speed a fling needs to travel `distance` points before it stops: v₀ = d·(−ln r).
    static func velocity(toTravel distance: Double) -> Double { distance * -log(decelerationRate) }

    /// The finger moves the content at a steady speed (+1 down the feed, −1 back up).
    mutating func drag(speed: Double, milliseconds: Double, direction: Double = 1) {
        velocity = min(speed, velocityLimit)
        for _ in 0..<max(1, Int((milliseconds / frameMilliseconds).rounded())) where !blocked(direction) {
            advance(by: direction * velocity * frameMilliseconds, dragging: true)
        }
    }

    /// The finger lifts at `velocity` and the content decelerates until it is slower than `until`.
    mutating func fling(velocity start: Double, until stopVelocity: Double, direction: Double = 1) {
        velocity = min(start, velocityLimit)
        let decay = pow(Self.decelerationRate, frameMilliseconds)
        let lnRate = log(Self.decelerationRate)
        while velocity > stopVelocity && !blocked(direction) {
            let distance = velocity * (decay - 1) / lnRate
            velocity *= decay
            advance(by: direction * distance, dragging: false)
        }
    }

    /// The content rests (a finger stopped it; the user reads).
    mutating func dwell(milliseconds: Double) {
        velocity = 0
        for _ in 0..<max(1, Int((milliseconds / frameMilliseconds).rounded())) {
            frames.append(ScrollFrame(offset: offset, dragging: false))
        }
    }

    private func blocked(_ direction: Double) -> Bool { direction > 0 ? atEnd : atTop }

    private mutating func advance(by distance: Double, dragging: Bool) {
        offset = min(viewport.maxOffset, max(0, offset + distance))
        if atEnd || atTop { velocity = 0 }
        frames.append(ScrollFrame(offset: offset, dragging: dragging))
    }
}
