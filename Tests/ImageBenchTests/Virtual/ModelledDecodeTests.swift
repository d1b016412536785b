import Foundation
import Testing
@testable import ImageBench

@Suite("Decodes in virtual time, from a calibration's decode times")
struct ModelledDecodeTests {
    /// This machine's calibration with made-up decode times: image i takes 1 ms + i × 10 µs, the
    /// sepia filter 300 µs.
    static func calibration(images: Int, seed: UInt64 = 1, baseUs: Int = 1_000) -> HostCalibration {
        let here = RunEnvironment.capture()
        var calibration = HostCalibration(hostDelayMs: 0.5, p10Ms: 0.4, p90Ms: 0.8, fetches: 900, cpuModel: here.cpuModel,
                                          cpuCount: here.cpuCount, imgbench: here.imgbenchVersion, libcurl: here.libcurl)
        calibration.decodes = DecodeCosts(seed: seed, format: CorpusFormat.mixed.description, cellWidth: 240, cellHeight: 240,
                                          decodeUs: (0..<images).map { baseUs + $0 * 10 }, sourcePixels: Array(repeating: 300_000, count: images),
                                          cellBytes: Array(repeating: 230_400, count: images),
                                          filterUs: ["none": 0, "sepia": 300, "grayscale": 100, "blur": 900])
        return calibration
    }

    @Test("calibrate's decode times: each image decoded to the cell, its picture's pixels, a time per filter; read back as written")
    func measured() throws {
        let costs = try #require(try DecodeCosts.measure(count: 4, seed: 3, format: .mixed))
        #expect(costs.decodeUs.count == 4 && costs.decodeUs.allSatisfy { $0 > 0 }, "\(costs.decodeUs)")
        #expect(costs.sourcePixels == (0..<4).map { ImageCorpus.makeImage(id: $0, seed: 3).size.pixelCount })
        // A cell holds at most the cell's pixels, and fewer for a picture smaller than the cell.
        #expect(costs.cellBytes.allSatisfy { 0 < $0 && $0 <= 240 * 240 * 4 } && costs.cellBytes.count == 4, "\(costs.cellBytes)")
        #expect(Set(costs.filterUs.keys) == Set(ImageFilter.allCases.map(\.rawValue)) && costs.filterUs["none"]! <= costs.filterUs["blur"]!)
        #expect(costs.isPlausible && costs.text.contains("4 images (seed 3, jpeg+png)"))
        var calibration = Self.calibration(images: 1)
        calibration.decodes = costs
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(HostCalibration.self, from: calibration.jsonData()) == calibration)
    }

    @Test("a virtual run that decodes: each decode alone takes its image's calibrated time, split into decode and filter; two runs write the same summary.csv; the plan keeps the file")
    func virtualDecodes() throws {
        let root = try Fixtures.temporaryDirectory("virtual-decodes")
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("calibration.json")
        try Self.calibration(images: 100).jsonData().write(to: file)
        // One load at a time: a decode never shares the cores.
        let words = ["--time", "virtual", "--rows", "200", "--strategies", "events", "--transport", "multi", "--concurrency", "1",
                     "--cancel", "none", "--network", "wifi", "--host-delay-ms", file.path]
        let plan = try RunOptions(parsing: words).resolved().plan
        #expect(plan.settings.calibrationFile == file.path && plan.settings.decodeCosts?.decodeUs.count == 100)
        #expect(RunArguments(plan).words.contains(file.path), "\(RunArguments(plan).words)")
        #expect(plan.settings.hostDelayPhrase() == ", with the host's own 0.500 ms per request (--host-delay-ms), and each image's decode as timed on this machine")
        // Another calibration's plan differs by one short line an array, not by the arrays.
        var other = plan
        other.settings.decodeCosts = Self.calibration(images: 100, baseUs: 2_000).decodes
        let lines = plan.differences(from: other)
        #expect(lines.count == 1 && lines[0].hasPrefix("settings.decodeCosts.decodeUs: [100 values, #") && lines[0].count < 120, "\(lines)")
        let results = try Benchmark.run(plan)
        let requests = results.results[0].requests.filter { $0.source == .network && $0.outcome == .displayed }
        #expect(requests.count > 10, "\(requests.count)")
        for request in requests {
            let stages = try #require(request.stages)
            let id = try #require(Int(request.url.split(separator: "/").last!.split(separator: ".").first!))
            #expect(stages.decode == UInt64(1_000 + id * 10) * 1_000 && stages.filter == 300_000, "\(request.url): \(stages)")
        }
        let again = try Benchmark.run(plan)
        #expect(try SummaryCSV().render(again) == SummaryCSV().render(results))
        // Counted as decoded images, as a real run's are.
        #expect(results.results[0].summary.imagesDecoded >= requests.count, "\(results.results[0].summary.imagesDecoded)")
        // Six loads at once, decodes of 40 ms: more decodes than cores at times, each then slower
        // than alone, and none faster.
        let slow = root.appendingPathComponent("slow.json")
        try Self.calibration(images: 100, baseUs: 40_000).jsonData().write(to: slow)
        let wide = try RunOptions(parsing: words.map { $0 == "1" ? "6" : $0 == file.path ? slow.path : $0 }).resolved().plan
        let shared = try Benchmark.run(wide).results[0].requests.filter { ($0.stages?.decode ?? 0) > 0 }
        let alone = { (request: RequestRecord) in UInt64(40_000 + Int(request.url.split(separator: "/").last!.split(separator: ".").first!)! * 10) * 1_000 }
        #expect(shared.allSatisfy { $0.stages!.decode >= alone($0) && $0.stages!.filter >= 300_000 })
        #expect(shared.contains { $0.stages!.decode > alone($0) }, "no decode shared the cores")
    }

    @Test("a virtual run that decodes without decode times, with another corpus's, or with stage queues is refused in one line naming why")
    func refusals() throws {
        let root = try Fixtures.temporaryDirectory("virtual-decode-refusals")
        defer { try? FileManager.default.removeItem(at: root) }
        let small = root.appendingPathComponent("small.json"), seeded = root.appendingPathComponent("seeded.json")
        let delayOnly = root.appendingPathComponent("delay-only.json")
        try Self.calibration(images: 10).jsonData().write(to: small)
        var withoutDecodes = Self.calibration(images: 1)
        withoutDecodes.decodes = nil
        try withoutDecodes.jsonData().write(to: delayOnly)
        try Self.calibration(images: 500, seed: 9).jsonData().write(to: seeded)
        let virtual = ["--time", "virtual", "--rows", "200", "--strategies", "events", "--transport", "multi"]
        let cases: [([String], [String])] = [
            (virtual + ["--host-delay-ms", "0.5"], ["--host-delay-ms FILE", "imgbench calibrate --out FILE", "--no-decode"]),
            (virtual + ["--host-delay-ms", small.path], ["10 images measured, the feed uses 100"]),
            (virtual + ["--host-delay-ms", delayOnly.path], ["holds no decode times", "--images N"]),
            (virtual + ["--host-delay-ms", seeded.path], ["seed 9 there, 1 here"]),
            (virtual + ["--host-delay-ms", seeded.path, "--seed", "9", "--decode-concurrency", "2"], ["--decode-concurrency"]),
        ]
        for (words, named) in cases {
            do {
                _ = try RunOptions(parsing: words).resolved()
                Issue.record("\(words) was taken")
            } catch {
                #expect(named.allSatisfy { error.description.contains($0) } && !error.description.contains("\n"), "\(words): \(error)")
            }
        }
        // The same file with the seed it measured runs.
        #expect(try RunOptions(parsing: virtual + ["--host-delay-ms", seeded.path, "--seed", "9"]).resolved().plan.settings.decodeCosts != nil)
    }
}
