import Testing
@testable import ImageBench

/// Issue 32, point 5: a load test that names no strategy runs events on the multi transport (the
/// cheap path); what a user names, and the app engineer's single decoding user, are kept.
@Suite("A load test's default strategies")
struct LoadTestDefaultsTests {
    private func plan(_ set: (inout RunOptions) -> Void) throws -> (strategies: [StrategyKind], transport: TransportKind, notes: [String]) {
        var options = RunOptions()
        set(&options)
        let plan = try options.plan()
        return (plan.strategies, plan.settings.transport, options.notes)
    }

    @Test("--clients above 1, --no-decode or a load model with no --strategies: events on multi, and the run says so")
    func cheapPath() throws {
        for set in [{ (o: inout RunOptions) in o["clients"] = "100" },
                    { (o: inout RunOptions) in o["no-decode"] = "true" },
                    { (o: inout RunOptions) in o["clients"] = "100"; o["no-decode"] = "true"; o["cancel"] = "none" },
                    { (o: inout RunOptions) in o["clients"] = "4"; o["transport"] = "multi" },
                    { (o: inout RunOptions) in o["stages"] = "5s:10"; o["no-decode"] = "true" }] {
            let chosen = try plan(set)
            #expect(chosen.strategies == [.events])
            #expect(chosen.transport == .multi)
            #expect(chosen.notes == [LoadTestDefaults.note])
        }
    }

    @Test("the app engineer's run (one user, decoding) keeps operation-queue, gcd and threads on blocking handles, silently")
    func appEngineer() throws {
        let chosen = try plan { _ in }
        #expect(chosen.strategies == [.operationQueue, .gcd, .threads])
        #expect(chosen.transport == .blocking)
        #expect(chosen.notes.isEmpty)
        let explicitOne = try plan { $0["clients"] = "1" }
        #expect(explicitOne.strategies == [.operationQueue, .gcd, .threads])
    }

    @Test("named strategies or another transport are kept as named")
    func named() throws {
        let threads = try plan { $0["clients"] = "100"; $0["strategies"] = "threads" }
        #expect(threads.strategies == [.threads])
        #expect(threads.transport == .blocking)
        #expect(threads.notes.isEmpty)
        let blocking = try plan { $0["clients"] = "100"; $0["transport"] = "blocking" }
        #expect(blocking.strategies == [.operationQueue, .gcd, .threads])
        #expect(blocking.transport == .blocking)
        let compared = try plan { $0["clients"] = "100"; $0["transport"] = "blocking,multi" }
        #expect(compared.strategies == [.operationQueue, .gcd, .threads])
    }
}
