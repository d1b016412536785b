import Foundation
import Testing
@testable import ImageBench

/// `imgbench explore`: the space read from run flags, the Pareto front, and a whole exploration
/// (virtual cells, then real runs of the model's best and of the user's settings on one trace).
@Suite("Explore: the space in virtual time, the best confirmed for real")
struct ExploreTests {
    @Test("run flags' lists make the space; --network 3g,wifi is two networks, a profile's own commas one; what explore cannot honour is one line")
    func options() throws {
        let two = try ExploreOptions(parsing: ["--network", "3g,wifi", "--concurrency", "1,4", "--cancel", "none,offscreen", "--confirm", "2"])
        #expect(two.plans.map(\.settings.network.name) == ["3g", "wifi"] && two.confirmTop == 2)
        // Decoding, as an app does, with the one strategy the model has.
        #expect(two.plans.allSatisfy { $0.settings.isVirtual && $0.settings.decodes && $0.strategies == [.events] && $0.measuredRuns == 4 })
        #expect(try ExploreOptions(parsing: ["--no-decode"]).plans.allSatisfy { !$0.settings.decodes })
        let custom = try ExploreOptions(parsing: ["--network", "latency=80ms,jitter=0ms,bandwidth=1MB/s"])
        #expect(custom.plans.count == 1 && custom.plans[0].settings.network.latencyMilliseconds == 80 && custom.confirmTop == 3)
        // The host is measured first when real runs follow, unless --host-delay-ms says its time (0: none).
        #expect(two.calibrates && custom.calibrates)
        for words in [["--host-delay-ms", "0.7"], ["--host-delay-ms", "0"], ["--confirm", "0"]] {
            #expect(try !ExploreOptions(parsing: words + ["--no-decode"]).calibrates, "\(words)")
        }
        #expect(try ExploreOptions(parsing: ["--host-delay-ms", "0.7", "--no-decode"]).plans[0].settings.hostDelayMs == 0.7)
        for (words, reason) in [(["--confirm", "11"], "--confirm '11'"), (["--time", "real"], "--time is not taken"),
                                (["--repeat", "3"], "--repeat is not taken"),
                                (["--strategies", "threads"], "only the events strategy"),
                                // A delay alone cannot model decodes, nor can the model go without real runs' calibration.
                                (["--host-delay-ms", "0.7"], "--host-delay-ms FILE"), (["--confirm", "0"], "(or --no-decode)"),
                                (["--network", "wifi,moon"], "moon")] {
            #expect(throws: PlanError.self, "\(words)") { try ExploreOptions(parsing: words) }
            do {
                _ = try ExploreOptions(parsing: words)
            } catch {
                #expect(error.description.contains(reason), "\(words): \(error.description)")
            }
        }
        // The user's settings: one value per flag, in the plan's space (the policies it varies).
        let plan = two.plans[0]
        let yours = try ExploreOptions(parsing: ["--cancel", "none,offscreen", "--current", "--concurrency 6 --cancel none"]).currentCell(in: plan)
        #expect(yours.concurrency == 6 && yours.variant.values == [.cancel: "none"] && yours.name == "×6 cancel=none")
        #expect(try ExploreOptions(parsing: []).currentCell(in: plan).name == "×5 cancel=offscreen")
        #expect(throws: PlanError.self) { try ExploreOptions(parsing: ["--current", "--concurrency 4,6"]) }
        // A setting the space does not vary would be dropped from "your settings": refused, naming it.
        #expect(throws: PlanError("--current: --prefetch is not explored (give it a list to explore it, or set it outside --current for every cell)")) {
            try ExploreOptions(parsing: ["--cancel", "none,offscreen", "--current", "--concurrency 6 --prefetch 10"])
        }
    }

    static func cell(_ name: Int, ms: Double, bytes: Double, ranked: Bool = true, by metric: Verdict.RankedMetric = .placeholder,
                     interval: Interval? = nil) -> ExploredCell {
        ExploredCell(choice: ExploredChoice(concurrency: name, variant: PolicyVariant()), ranked: ranked, invalidReason: ranked ? nil : "x",
                     meanMs: ms, interval: interval, rankedBy: metric, bytesPerImage: bytes, megabytesDown: 0, memoryHits: 0,
                     networkFetches: 0, merged: 0, requests: 0)
    }

    @Test("the model's error is a difference of one metric against a ranked real cell, inside or outside its interval, or says why there is none")
    func modelError() {
        let real = Self.cell(4, ms: 20, bytes: 1, by: .restWait, interval: Interval(center: 20, low: 18, high: 23, n: 9))
        #expect(Exploration.Network.error(of: Self.cell(4, ms: 21.5, bytes: 1, by: .restWait), against: real) == "+1.5 ms, inside the real interval")
        #expect(Exploration.Network.error(of: Self.cell(4, ms: 17, bytes: 1, by: .restWait), against: real) == "-3.0 ms, outside the real interval")
        // The model ranked its cells by placeholder time (too few rests in its runs): no difference of two metrics.
        #expect(Exploration.Network.error(of: Self.cell(4, ms: 20, bytes: 1), against: real)
                == "not comparable: the model ranks by placeholder time, the real runs by wait at rest")
        #expect(Exploration.Network.error(of: Self.cell(4, ms: 20, bytes: 1, by: .restWait),
                                          against: Self.cell(4, ms: 90, bytes: 1, ranked: false, by: .restWait)) == "no error: not ranked")
        #expect(Exploration.Network.error(of: Self.cell(4, ms: 20, bytes: 1), against: Self.cell(4, ms: 19, bytes: 1))
                == "+1.0 ms (the real run gave no interval)")
    }

    @Test("the Pareto front keeps what nothing beats on both wait and bytes, cheapest first, each step's gain and price")
    func paretoFront() {
        let cells = [Self.cell(1, ms: 10, bytes: 5_000), Self.cell(2, ms: 8, bytes: 9_000), Self.cell(3, ms: 12, bytes: 9_000),
                     Self.cell(4, ms: 9, bytes: 12_000), Self.cell(5, ms: 5, bytes: 20_000), Self.cell(6, ms: 1, bytes: 1, ranked: false),
                     Self.cell(7, ms: 8, bytes: 9_000)]
        let steps = ParetoFront(cells).steps
        #expect(steps.map(\.cell.choice.concurrency) == [1, 2, 5])
        #expect(steps[0].savesMs == nil && steps[1].savesMs == 2 && steps[1].addsBytesPerImage == 4_000)
        #expect(steps[2].savesMs == 3 && steps[2].addsBytesPerImage == 11_000)
    }

    @Test("an exploration models every combination and the user's settings, runs the model's best and those settings for real on one trace, and sets the model beside them")
    func exploration() async throws {
        try await onOwnThread {
            let root = try Fixtures.temporaryDirectory("explore")
            defer { try? FileManager.default.removeItem(at: root) }
            let options = try ExploreOptions(parsing: ["--rows", "200", "--concurrency", "1,4", "--cancel", "none,offscreen", "--confirm", "1",
                                                       "--warmup-seconds", "0"])
            let exploration = try Exploration.run(options, into: root, observer: nil, stop: nil, corpusCache: nil) { _ in }
            let network = try #require(exploration.networks.first)
            // Four combinations, and the user's ×5 (imgbench's default) modelled beside them.
            #expect(network.model.count == 5 && network.model.allSatisfy(\.ranked), "\(network.model.map(\.choice.name))")
            #expect(network.current.name == "×5 cancel=offscreen" && network.model.contains { $0.choice == network.current })
            // Confirmed: the model's best, then the user's settings, each beside the model's figures.
            #expect(network.confirmed.map(\.real.choice) == [network.ranking[0].choice, network.current])
            for (modelled, real) in network.confirmed {
                #expect(modelled.choice == real.choice && modelled.interval == nil)
                #expect(real.requests > 0 && real.networkFetches > 0 && real.megabytesDown > 0, "\(real.choice.name)")
                if real.ranked { #expect(real.interval != nil, "\(real.choice.name): a real run's mean has an interval") }
            }
            #expect(!network.verdict.isEmpty)
            let modelRows = try ResultsDirectory(path: network.modelDirectory.path).runs
            #expect(modelRows.count == 5 && modelRows.allSatisfy { $0.value("cpu_user_s") == 0 })
            let realRows = try ResultsDirectory(path: try #require(network.confirmDirectory).path).runs
            #expect(realRows.count == 2 && Set(realRows.compactMap { $0.text("concurrency") }) == Set(network.confirmed.map { String($0.real.choice.concurrency) }))
            let text = exploration.text
            for part in ["Explored 4 combinations in virtual time", "## wifi", "Pareto front", "Confirmed by real runs of the same trace",
                         "×5 cancel=offscreen (yours)", "Verdict (real runs):",
                         "5 of the 5 cells (the 4 combinations and your settings, which are not one of them) ranked:"] {
                #expect(text.contains(part), "missing '\(part)':\n\(text)")
            }
            // The real verdict's leader, where a real cell could be ranked (a starved host's are not).
            let anyRanked = network.confirmed.contains { $0.real.ranked }
            #expect((network.leader != nil) == anyRanked && (network.decision != nil) == anyRanked, "\(text)")
            if let leader = network.leader { #expect(network.confirmed.contains { $0.real.choice == leader }) }
            // Flags to type only for a lead beyond noise; a tie or an open question recommends nothing.
            let recommends = network.decision == .better || network.decision == .cheaper
            #expect(text.contains("Its flags: --concurrency") == recommends, "\(text)")
            #expect(text.contains("so nothing is recommended") == (network.decision == .undecided || network.decision == .alone), "\(text)")
            #expect(text.contains("The model's Pareto front"))
            // Real runs follow and no --host-delay-ms was given: this machine's own time per
            // request was measured first, given to the model and said.
            let calibration = try HostCalibration.read(root.appendingPathComponent("calibration.json"))
            #expect(calibration.hostDelayMs > 0 && text.contains("\(Format.compact(calibration.hostDelayMs)) ms per request (measured first: calibration.json)"), "\(text)")
            let modelPlan = try JSONSerialization.jsonObject(with: Data(contentsOf: network.modelDirectory.appendingPathComponent("summary.json"))) as? [String: Any]
            #expect(modelPlan?["host_delay_ms"] as? Double == calibration.hostDelayMs)
            #expect(exploration.written(in: root) == ["explore.md", "calibration.json", "model-wifi/", "confirm-wifi/"])
            // Both sides decode: the calibration timed the feed's 100 images, the model's decodes took their time.
            #expect(calibration.decodes?.decodeUs.count == 100, "\(String(describing: calibration.decodes?.decodeUs.count))")
            let modelled = try String(contentsOf: network.modelDirectory.appendingPathComponent("requests.csv"), encoding: .utf8)
            let table = CSVTable.parse(modelled), decodeColumn = try #require(table[0].firstIndex(of: "decode_ms"))
            #expect(table.dropFirst().contains { $0.count > decodeColumn && (Double($0[decodeColumn]) ?? 0) > 0 })
            #expect(realRows.allSatisfy { ($0.value("images_decoded") ?? 0) > 0 } && modelRows.allSatisfy { ($0.value("images_decoded") ?? 0) > 0 })
        }
    }

    @Test("an exploration stopped before its first combination (while measuring the host) says so, and nothing else")
    func stoppedFirst() {
        let stopped = Exploration(networks: [], confirmTop: 3, hostDelay: "", stoppedBy: "SIGINT")
        #expect(stopped.text == "Stopped by SIGINT before any combination was explored: nothing to rank.\n")
        // Nor does its last line list results it never wrote.
        #expect(stopped.written(in: FileManager.default.temporaryDirectory.appendingPathComponent("imgbench-nothing-\(UUID().uuidString)")) == ["explore.md"])
    }

    @Test("--confirm 0: the model's ranking alone, said to be no verdict; nothing runs for real")
    func modelOnly() async throws {
        let root = try Fixtures.temporaryDirectory("explore-model-only")
        defer { try? FileManager.default.removeItem(at: root) }
        let options = try ExploreOptions(parsing: ["--rows", "200", "--concurrency", "2,3", "--confirm", "0", "--current", "--concurrency 2",
                                                   "--no-decode"])
        let exploration = try await onOwnThread { try Exploration.run(options, into: root, observer: nil, stop: nil, corpusCache: nil) { _ in } }
        let network = try #require(exploration.networks.first)
        #expect(network.model.count == 2 && network.confirmed.isEmpty && network.confirmDirectory == nil)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("confirm-wifi").path))
        #expect(exploration.text.contains("Not confirmed (--confirm 0): the model's ranking is no verdict"))
        // The user's settings are one of the combinations: counted once.
        #expect(exploration.text.contains("2 of the 2 combinations ranked:"), "\(exploration.text)")
        // Nor is the host measured: without real runs to follow, the model goes without it.
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("calibration.json").path) && !options.calibrates)
        #expect(!exploration.text.contains("ms per request"))
        #expect(exploration.written(in: root) == ["explore.md", "model-wifi/"])
    }
}
