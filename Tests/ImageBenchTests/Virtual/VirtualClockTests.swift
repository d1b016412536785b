import Foundation
import Testing
@testable import ImageBench

@Suite("The virtual clock")
struct VirtualClockTests {
    @Test("events run in time order, ties in the order scheduled, each at its own time; a cancelled one never runs; sleep ends at its deadline")
    func ordering() {
        let clock = VirtualClock(start: 1_000)
        let seen = Locked<[String]>([])
        @Sendable func note(_ name: String) -> @Sendable () -> Void { { seen.withLockedValue { $0.append("\(name)@\(clock.now())") } } }
        clock.schedule(at: 1_300, note("c"))
        clock.schedule(at: 1_100, note("a"))
        let dropped = clock.schedule(at: 1_200, note("dropped"))
        clock.schedule(at: 1_300, note("d"))
        // An event that schedules another inside the same sleep: it runs too, in its turn.
        clock.schedule(at: 1_150) { clock.schedule(at: 1_250, note("b")) }
        clock.schedule(at: 1_600, note("later"))
        clock.cancel(dropped)
        #expect(clock.pending == 5)
        clock.sleep(until: 1_500)
        #expect(seen.withLockedValue { $0 } == ["a@1100", "b@1250", "c@1300", "d@1300"])
        #expect(clock.now() == 1_500 && clock.pending == 1)
        // A deadline in the past moves nothing; an event already due runs at the clock's time.
        clock.schedule(at: 1_400, note("late"))
        clock.sleep(until: 1_200)
        #expect(clock.now() == 1_500 && seen.withLockedValue { $0.last } == "late@1500")
        clock.sleep(until: 2_000)
        #expect(seen.withLockedValue { $0.last } == "later@1600" && clock.now() == 2_000 && clock.pending == 0)
    }
}
