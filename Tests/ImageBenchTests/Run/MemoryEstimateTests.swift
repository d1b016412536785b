import Foundation
import Testing
@testable import ImageBench

@Suite("The memory a plan needs")
struct MemoryEstimateTests {
    static func plan(clients: Int = 1, decodes: Bool = true, rows: Int = 5_000) -> BenchmarkPlan {
        var settings = RunSettings()
        settings.clients = clients
        settings.decodes = decodes
        settings.rows = rows
        return BenchmarkPlan(settings: settings, strategies: [.threads, .gcd], concurrencies: [5], repeats: 1, warmups: 0, warmupSeconds: 0)
    }

    @Test("load models: an open model's caches are those of the users scrolling at once; a looping user's records, every session's")
    func loadModels() throws {
        var open = Self.plan(rows: 1_000)
        open.settings.load = .arrivalRate(perSecond: 5, seconds: 120)
        open.settings.clients = 600
        let trace = ScrollTrace.generate(profile: open.settings.scroll, viewport: Viewport(rowCount: 1_000), fps: 60, seed: 1).duration
        let alive = Int((5 * (trace + open.settings.settleSeconds)).rounded(.up)) + 1
        let estimate = MemoryEstimate(open)
        #expect(alive < 600 && estimate.parts.contains { $0.name == "memory caches (\(alive) users × 64.0 MB)" }, "\(estimate.parts)")
        var looping = Self.plan(clients: 100, decodes: false, rows: 1_000)
        looping.settings.load = .duration(seconds: 3_600)
        let sessions = Int((3_600 / trace).rounded(.up))
        let records = try #require(MemoryEstimate(looping).parts.first { $0.name.hasPrefix("request records") })
        #expect(records.name.hasSuffix("× \(sessions) sessions)") && records.bytes == 2 * 100 * 1_000 * sessions * MemoryEstimate.requestBytes,
                "\(records)")
        // An hour of a hundred looping users' records does not fit in 8 GB: refused before it starts.
        #expect(throws: BenchmarkError.self) { try MemoryEstimate(looping).check(available: 8_000_000_000) }
    }

    @Test("a thousand users each filling a 64 MB cache are refused with the estimate; one user, or --no-decode, fit")
    func refusesWhatCannotFit() throws {
        let eightGB = 8_000_000_000
        let crowd = MemoryEstimate(Self.plan(clients: 1_000))
        // 2,000 distinct images of 240×240×4 bytes overfill 64 MB: each cache reaches its limit.
        #expect(crowd.parts.first?.name == "memory caches (1000 users × 64.0 MB)" && crowd.parts.first?.bytes == 64_000_000_000)
        #expect(throws: BenchmarkError.self) { try crowd.check(available: eightGB) }
        do {
            try crowd.check(available: eightGB)
        } catch {
            #expect(error.description.hasPrefix("this plan needs about 6") && error.description.contains("memory caches (1000 users × 64.0 MB) 64.0 GB")
                    && error.description.contains("more than the 8000.0 MB available"), "\(error.description)")
            #expect(error.description.contains("--clients") && error.description.contains("--shard"), "\(error.description)")
        }
        let one = MemoryEstimate(Self.plan())
        #expect(one.bytes < 200_000_000, "\(one.parts)")
        try one.check(available: eightGB)
        // --no-decode keeps stand-ins of a few bytes: a thousand load-generating users fit.
        try MemoryEstimate(Self.plan(clients: 1_000, decodes: false, rows: 2_000)).check(available: eightGB)
        let meminfo = "MemTotal: 16 kB\nMemAvailable:    2048 kB\n"
        #expect(MemoryEstimate.available(meminfo: meminfo, cgroupMax: nil, cgroupCurrent: nil) == 2_097_152)
        #expect(MemoryEstimate.available(meminfo: "nothing here", cgroupMax: nil, cgroupCurrent: nil) == nil)
        // A container's limit is what it may still take, when that is less.
        #expect(MemoryEstimate.available(meminfo: meminfo, cgroupMax: "1500000\n", cgroupCurrent: "500000\n") == 1_000_000)
        #expect(MemoryEstimate.available(meminfo: meminfo, cgroupMax: "max\n", cgroupCurrent: "500000\n") == 2_097_152)
    }
}
