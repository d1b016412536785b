import Foundation
import Testing
@testable import ImageBench

@Suite("The modelled cores of a virtual run")
struct ModelledCPUTests {
    /// Runs jobs of `work` ms arriving at `arrivals` ms on `cores`; returns when each ended (ms after the start).
    static func ends(cores: Int, jobs: [(arrival: UInt64, work: UInt64)], cancelAt: (job: Int, at: UInt64)? = nil,
                     order: Locked<[Int]> = Locked([])) -> [UInt64?] {
        let clock = VirtualClock()
        let start = clock.now(), cpu = ModelledCPU(cores: cores, clock: clock)
        let ended = Locked<[UInt64?]>(Array(repeating: nil, count: jobs.count))
        let tokens = jobs.map { _ in LoadToken() }
        for token in tokens { _ = token.begin() }  // decoding: under way
        for (index, job) in jobs.enumerated() {
            clock.schedule(at: start + job.arrival * 1_000_000) {
                cpu.run(work: job.work * 1_000_000, token: tokens[index]) {
                    ended.withLockedValue { $0[index] = (clock.now() - start) / 1_000 }
                    order.withLockedValue { $0.append(index) }
                }
            }
        }
        if let cancelAt { clock.schedule(at: start + cancelAt.at * 1_000_000) { _ = tokens[cancelAt.job].cancel() } }
        clock.sleep(until: start + 10_000_000_000)
        #expect(cpu.running == 0 && clock.pending == 0)
        return ended.withLockedValue { $0 }
    }

    @Test("a job alone takes its work; jobs beyond the cores share them (processor sharing); ties end in arrival order")
    func sharing() {
        // In microseconds: alone, exactly its work.
        #expect(Self.ends(cores: 2, jobs: [(0, 10)]) == [10_000])
        // Two jobs on one core run at half speed each: both end at 20 ms, the first to arrive first.
        let order = Locked<[Int]>([])
        #expect(Self.ends(cores: 1, jobs: [(0, 10), (0, 10)], order: order) == [20_000, 20_000])
        #expect(order.withLockedValue { $0 } == [0, 1])
        // Two on two cores do not slow each other.
        #expect(Self.ends(cores: 2, jobs: [(0, 10), (0, 10)]) == [10_000, 10_000])
        // Three on two cores, at 2/3 each: 10 ms of work ends at 15 ms.
        #expect(Self.ends(cores: 2, jobs: [(0, 10), (0, 10), (0, 10)]) == [15_000, 15_000, 15_000])
        // One core: a 10 ms job, a 4 ms job arriving at 2 ms. Both share from 2 ms; the short one
        // has 4 ms left at half speed (ends at 10 ms), then the long one its last 4 ms alone (14 ms).
        #expect(Self.ends(cores: 1, jobs: [(0, 10), (2, 4)]) == [14_000, 10_000])
    }

    @Test("a cancelled job leaves the cores at once (its end comes at the clock's next wait) and the others speed up")
    func cancel() {
        // One core, two 10 ms jobs; the second is cancelled at 4 ms (2 ms of work done each).
        // The first then runs alone: 8 ms left, ending at 12 ms.
        #expect(Self.ends(cores: 1, jobs: [(0, 10), (0, 10)], cancelAt: (1, 4)) == [12_000, 4_000])
    }
}
