import Foundation
import Testing
@testable import ImageBench

@Suite("Fault injection (a testing aid)")
struct FaultInjectionTests {
    @Test("specs parse, and nonsense is refused with the reason")
    func parsing() throws {
        let injection = try FaultInjection(parsing: "latency=+20%, decode=+3ms")
        #expect(injection.latencyFactor == 1.2 && injection.decodeMilliseconds == 3)
        let shaped = injection.applied(to: try NetworkProfile(parsing: "wifi"))
        #expect(abs(shaped.latencyMilliseconds - 36) < 1e-9 && abs(shaped.jitterMilliseconds - 12) < 1e-9)
        #expect(throws: FaultInjection.ParseError.self) { try FaultInjection(parsing: "decode=+3%") }
        #expect(throws: FaultInjection.ParseError.self) { try FaultInjection(parsing: "paint=+3ms") }
        #expect(throws: FaultInjection.ParseError.self) { try FaultInjection(parsing: "decode=3ms") }
        // The cancel policy broken on purpose: no stage slowed, so a virtual run takes it.
        let policy = try FaultInjection(parsing: "cancel=running-only")
        #expect(policy.keepsQueuedLoads && !policy.slowsStages && injection.slowsStages && !injection.keepsQueuedLoads)
        #expect(throws: FaultInjection.ParseError.self) { try FaultInjection(parsing: "cancel=never") }
    }

    @Test("injected latency and decode time show up in every load's stages")
    func injected() async throws {
        let (summary, requests) = try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 80
            settings.network = try NetworkProfile(parsing: "latency=20ms")
            settings.settleSeconds = 1
            settings.injection = try FaultInjection(parsing: "latency=+30ms,decode=+4ms")
            let results = try Benchmark.run(BenchmarkPlan(settings: settings, strategies: [.threads], concurrencies: [4]))
            return (results.results[0].summary, results.results[0].requests)
        }
        let loads = requests.filter { $0.source == .network && $0.outcome == .displayed }
        #expect(summary.displayed > 0 && !loads.isEmpty)
        for request in loads {
            #expect(request.stages!.timeToFirstByte >= 50_000_000)
            #expect(request.stages!.decode >= 4_000_000)
        }
    }
}
