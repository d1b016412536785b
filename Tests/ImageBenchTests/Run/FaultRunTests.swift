import Foundation
import Testing
@testable import ImageBench

/// Whole runs against a server that injects faults: the run completes, every failure is counted
/// in its class, and the counts agree with what the server says it injected.
@Suite("Runs against a faulty server")
struct FaultRunTests {
    @Test("error/reset/stall at 5% each: failures by class match the server's own counts; no fetch outlives the timeout")
    func faultyServer() async throws {
        let result = try await onOwnThread {
            var settings = RunSettings()
            settings.rows = 600
            settings.network = try NetworkProfile(parsing: "latency=10ms,jitter=5ms")
            settings.faults = try ServerFaults(parsing: "error=5%,reset=5%,stall=5%")
            // Every fetch runs to its end, so each injected fault meets the client.
            settings.cancelPolicy = .none
            settings.fetchLimits = FetchLimits(timeoutMilliseconds: 2_000, stallMilliseconds: 1_000)
            settings.settleSeconds = 4
            let results = try Benchmark.run(BenchmarkPlan(settings: settings, strategies: [.threads], concurrencies: [5]))
            return results.results[0]
        }
        let s = result.summary
        let server = try #require(result.server)
        #expect(s.requests == s.memoryHits + s.diskHits + s.networkFetches + s.merged + s.errors)
        #expect(server.requests > 150)
        // The server's draws are at the configured rate (4 standard errors)...
        let tolerance = 4 * (0.05 * 0.95 / Double(server.requests)).squareRoot()
        for kind in [ServerFaults.Kind.error, .reset, .stall] {
            #expect(abs(Double(server.faults[kind, default: 0]) / Double(server.requests) - 0.05) < tolerance, "\(kind): \(server)")
        }
        // ...and every one the client saw is counted in its class: all of them but stalls still
        // waiting when the run ended.
        #expect(s.errorsByClass[.httpStatus, default: 0] == server.faults[.error, default: 0])
        #expect(s.errorsByClass[.connection, default: 0] == server.faults[.reset, default: 0])
        let stalls = server.faults[.stall, default: 0]
        #expect(s.errorsByClass[.timeout, default: 0] <= stalls && s.errorsByClass[.timeout, default: 0] >= stalls - 5)
        #expect(s.errorsByClass[.decode, default: 0] == 0 && s.errorsByClass[.tooLarge, default: 0] == 0)
        for request in result.requests where request.outcome == .error {
            #expect(request.errorClass != nil && request.errorMessage?.isEmpty == false)
        }
        // curl enforces the timeouts: no fetch took longer than --timeout plus a second.
        for request in result.requests {
            guard let stages = request.stages else { continue }
            #expect(stages.timeToFirstByte + stages.transfer < 3_000_000_000, "request \(request.id): \(stages)")
        }
    }
}
