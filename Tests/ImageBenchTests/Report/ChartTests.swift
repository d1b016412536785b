import Foundation
import Testing
@testable import ImageBench

@Suite("report.html's chart pieces")
struct ChartTests {
    @Test("ticks fall on round values and end at or above the data; labels carry the decimals the step needs")
    func roundTicks() {
        let (values, end) = RoundTicks.ticks(upTo: 7.3, count: 4)
        #expect(values == [0, 2, 4, 6, 8] && end == 8)
        #expect(RoundTicks.ticks(upTo: 0.9, count: 4).values == [0, 0.25, 0.5, 0.75, 1])
        #expect(RoundTicks.ticks(upTo: 9, count: 4, integers: true).values == [0, 5, 10], "no tick at 2.5 rows")
        #expect(RoundTicks.ticks(upTo: 3, count: 5, integers: true).values == [0, 1, 2, 3])
        #expect(RoundTicks.ticks(upTo: 1_460, from: 1_230, count: 5).values == [1_200, 1_250, 1_300, 1_350, 1_400, 1_450, 1_500])
        #expect(RoundTicks.label(2.5, step: 2.5) == "2.5" && RoundTicks.label(0.75, step: 0.25, unit: " s") == "0.75 s")
        #expect(RoundTicks.label(40, step: 20, unit: "%") == "40%")
    }

    @Test("cells of one strategy are shades of its hue, all distinct; other series' hues are no strategy's")
    func colours() {
        let colours = SeriesColours(limits: [1, 2, 5, 10])
        let cells = StrategyKind.allCases.flatMap { kind in [1, 2, 5, 10].map { colours.cell(kind, $0) } }
        #expect(Set(cells).count == cells.count, "\(cells)")
        let strategies = StrategyKind.allCases.map(colours.strategy)
        #expect(Set(SeriesColours.kinds.values.map(\.hex)).isDisjoint(with: strategies))
        #expect(SeriesColours(limits: [5]).cell(.gcd, 5) == colours.strategy(.gcd), "one limit: the strategy's own colour")
    }

    @Test("the timeline's window is the stretch with the most rows waiting")
    func worstWindow() {
        // Rows appear one a frame; the ones appearing at frames 300–329 wait 20 frames, the rest 1.
        let requests = (0..<600).map { frame in
            var request = RequestRecord(id: frame, row: frame, imageID: 0, url: "", visibleFrame: frame, requestedAt: 0, source: .network)
            request.placeholder = UInt64((300..<330).contains(frame) ? 20 : 1) * 16_666_667
            return request
        }
        let (waiting, window) = HTMLReport.worstWindow(requests, fps: 60, windowFrames: 60)
        #expect(waiting[100] == 1 && waiting[320] == 20)
        #expect(window.count == 60 && window.contains(320) && window.contains(340), "\(window)")
    }
}
