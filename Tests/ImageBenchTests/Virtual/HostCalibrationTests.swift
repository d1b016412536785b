import Foundation
import Testing
@testable import ImageBench

@Suite("The host's own time per request")
struct HostDelayTests {
    @Test("what calibrate measures, read off a virtual loopback run, is the modelled delay to the nanosecond for every fetch (the vsync, queue, first byte and transfer add up; nothing else counts)")
    func delaysOfAVirtualRun() throws {
        let words = HostCalibration.words(rows: 300) + ["--time", "virtual", "--host-delay-ms", "0.4375"]
        let plan = try RunOptions(parsing: words).resolved().plan
        #expect(plan.settings.hostDelayMs == 0.438, "whole microseconds")
        let results = try Benchmark.run(plan)
        let delays = HostCalibration.delays(in: results)
        #expect(delays.count > 100 && delays.allSatisfy { $0 == 438_000 }, "\(Set(delays).sorted().prefix(5))")
        #expect(plan.settings.onRealClock.hostDelayMs == nil && plan.settings.onRealClock.time == .real)
        // 0 is none: the same plan as without the flag.
        let none = try RunOptions(parsing: HostCalibration.words(rows: 300) + ["--time", "virtual", "--host-delay-ms", "0"]).resolved().plan
        #expect(none.settings.hostDelayMs == nil)
    }
}

@Suite("A calibration file as --host-delay-ms")
struct CalibrationFileTests {
    static func write(_ calibration: HostCalibration, to file: URL) throws {
        try calibration.jsonData().write(to: file)
    }

    @Test("this machine's file gives its delay; another CPU count or libcurl is refused naming each difference; a file that is not one is one line")
    func machineChecked() throws {
        let root = try Fixtures.temporaryDirectory("calibration-file")
        defer { try? FileManager.default.removeItem(at: root) }
        let here = RunEnvironment.capture()
        func calibration(cpus: Int, libcurl: String) -> HostCalibration {
            HostCalibration(hostDelayMs: 0.55, p10Ms: 0.4, p90Ms: 0.8, fetches: 900, cpuModel: here.cpuModel, cpuCount: cpus,
                            imgbench: here.imgbenchVersion, libcurl: libcurl)
        }
        let mine = root.appendingPathComponent("mine.json"), other = root.appendingPathComponent("other.json")
        try Self.write(calibration(cpus: here.cpuCount, libcurl: here.libcurl), to: mine)
        try Self.write(calibration(cpus: here.cpuCount + 2, libcurl: "libcurl/6.0"), to: other)
        let virtual = ["--time", "virtual", "--no-decode", "--host-delay-ms"]
        #expect(try RunOptions(parsing: virtual + [mine.path]).resolved().plan.settings.hostDelayMs == 0.55)
        do {
            _ = try RunOptions(parsing: virtual + [other.path]).resolved()
            Issue.record("another machine's calibration was taken")
        } catch {
            #expect(error.description.contains("CPUs \(here.cpuCount + 2) there, \(here.cpuCount) here")
                    && error.description.contains("libcurl libcurl/6.0 there") && error.description.contains("imgbench calibrate"),
                    "\(error)")
        }
        do {
            _ = try RunOptions(parsing: virtual + [root.appendingPathComponent("missing.json").path]).resolved()
            Issue.record("a missing file was taken")
        } catch {
            #expect(error.description.contains("nor a file imgbench calibrate --out wrote") && !error.description.contains("\n"))
        }
    }
}

extension ChildProcessRuns {
    @Suite("imgbench calibrate")
    struct HostCalibrationTests {
        @Test("a real loopback fling measures the host's own time per request: a median between its 10% and 90%, written as JSON a virtual run takes; bad rows are a one-line error")
        func calibrate() async throws {
            try await onOwnThread {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imgbench-calibrate-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let file = directory.appendingPathComponent("calibration.json")
                let run = try Fixtures.imgbench(["calibrate", "--rows", "200", "--images", "12", "--out", file.path])
                #expect(run.status == 0 && run.output.contains("Host delay: "), "\(run.output)")
                let calibration = try HostCalibration.read(file)
                // And the first 12 images' decodes, as the text says.
                #expect(calibration.decodes?.decodeUs.count == 12 && run.output.contains("Decodes to the 240×240 cell: 12 images (seed 1, jpeg+png)"),
                        "\(run.output)")
                // Every fetch on loopback takes the host some time, and never a tenth of a second.
                #expect(calibration.fetches > 50 && calibration.cpuCount >= 1 && !calibration.libcurl.isEmpty, "\(calibration)")
                #expect(0 < calibration.p10Ms && calibration.p90Ms < 100, "\(calibration)")
                #expect(run.output.contains("--time virtual --host-delay-ms \(Format.compact(calibration.hostDelayMs))"), "\(run.output)")
                for words in [["--rows", "10"], ["--images", "-1"], ["--images", "10001"]] {
                    let refused = try Fixtures.imgbench(["calibrate"] + words)
                    #expect(refused.status == 64 && refused.output.split(separator: "\n").count == 1, "\(words): \(refused.output)")
                }
            }
        }
    }
}
