import Testing
@testable import ImageBench

@Suite("Viewport and scroll trace")
struct ScrollTests {
    let viewport = Viewport(rowCount: 100, rowHeight: 88, height: 844)

    @Test("visible rows at the top, in between, and at the bottom")
    func visibleRows() {
        // 844 / 88 = 9.6: rows 0...9 at the top, row 9 partly.
        #expect(viewport.visibleRows(at: 0) == 0..<10)
        // Scrolled by 44 pt: row 0 half gone, row 10 shows its top 28 pt.
        #expect(viewport.visibleRows(at: 44) == 0..<11)
        // Exactly one row down: row 0 is fully gone (its bottom edge at the top edge).
        #expect(viewport.visibleRows(at: 88) == 1..<11)
        #expect(viewport.visibleRows(at: viewport.maxOffset) == 90..<100)
        // Overscroll is clamped to the content.
        #expect(viewport.visibleRows(at: -50) == 0..<10)
        #expect(viewport.visibleRows(at: 1e9) == 90..<100)
        #expect(viewport.maxOffset == 100 * 88 - 844)
    }

    @Test("a table shorter than the screen shows every row")
    func shortTable() {
        let short = Viewport(rowCount: 3)
        #expect(short.maxOffset == 0)
        #expect(short.visibleRows(at: 0) == 0..<3)
        #expect(short.visibleRows(at: 500) == 0..<3)
    }

    @Test("the same seed gives the same trace, another seed another")
    func deterministic() {
        let a = ScrollTrace.generate(profile: .fling, viewport: viewport, fps: 60, seed: 7)
        let b = ScrollTrace.generate(profile: .fling, viewport: viewport, fps: 60, seed: 7)
        let c = ScrollTrace.generate(profile: .fling, viewport: viewport, fps: 60, seed: 8)
        #expect(a == b)
        #expect(a != c)
    }

    @Test("the fling trace covers every row and never jumps past a screen in one frame", arguments: [30, 60, 120])
    func coverage(fps: Int) {
        let big = Viewport(rowCount: 2000)
        let trace = ScrollTrace.generate(profile: .fling, viewport: big, fps: fps, seed: 3)
        #expect(trace.frames.first!.offset >= 0)
        #expect(trace.frames.last!.offset == big.maxOffset)
        var seen = Set<Int>()
        var previous = 0.0
        for frame in trace.frames {
            #expect(frame.offset >= previous)  // fling only scrolls down
            #expect(frame.offset - previous < big.height)
            previous = frame.offset
            seen.formUnion(big.visibleRows(at: frame.offset))
        }
        #expect(seen.count == 2000)
        #expect(trace.frames.contains { $0.dragging })
    }

    @Test("deceleration follows UIScrollView's 0.998 per millisecond")
    func deceleration() {
        var physics = ScrollPhysics(frameMilliseconds: 1, viewport: Viewport(rowCount: 100_000))
        physics.fling(velocity: 10, until: 5)
        // v·0.998^t = 5 → t = ln(0.5)/ln(0.998) ≈ 346 ms; distance = (10 − 5)/−ln(0.998) ≈ 2498 pt
        #expect(abs(physics.frames.count - 347) <= 1)
        #expect(abs(physics.offset - 2498) < 10)
    }
}
