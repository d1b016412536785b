import Foundation
import Testing
@testable import ImageBench

/// Images with known pixel values, encoded by the real libjpeg and libpng.
enum Fixtures {
    /// RGB pixels made of four flat 16×16-aligned quadrants, so JPEG reproduces each colour
    /// almost exactly away from the edges.
    static func quadrants(size: PixelSize) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: size.pixelCount * 3)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let colour = quadrantColour(x: x, y: y, size: size)
                let offset = (y * size.width + x) * 3
                pixels[offset] = colour[0]; pixels[offset + 1] = colour[1]; pixels[offset + 2] = colour[2]
            }
        }
        return pixels
    }

    static func quadrantColour(x: Int, y: Int, size: PixelSize) -> [UInt8] {
        switch (x < size.width / 2, y < size.height / 2) {
        case (true, true): [200, 30, 30]
        case (false, true): [30, 200, 30]
        case (true, false): [30, 30, 200]
        case (false, false): [240, 240, 240]
        }
    }

    /// PNG chunk CRC (ISO 3309), to craft headers libpng accepts up to the lie they tell.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// The imgbench that child-process tests run: the release build the gate measured, not
    /// instrumented, when scripts/test names it (`IMGBENCH_PLAIN_EXECUTABLE`), else the one built
    /// beside this test bundle. Under ThreadSanitizer a child costs about three times the CPU
    /// (a 300-row run: 6.8 CPU-s against 2.5, the same 26–29 s of wall time), and these tests
    /// judge what the binary writes and exits with, which the sanitizer does not change; the
    /// library's concurrency is checked in-process, and the children whose own threads are the
    /// point (signals, servers, live metrics, progress) run `instrumentedExecutable`.
    static var executable: URL {
        ProcessInfo.processInfo.environment["IMGBENCH_PLAIN_EXECUTABLE"].map { URL(fileURLWithPath: $0) } ?? instrumentedExecutable
    }

    /// The imgbench built beside this test bundle: under scripts/test, instrumented by
    /// ThreadSanitizer (a race in the child makes it exit 66 with the report, `halt_on_error=1`).
    static var instrumentedExecutable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("imgbench")
    }

    /// `imgbench run` arguments without the default warm-up before each run (seconds of every
    /// test's time), unless the test sets one; other subcommands' arguments as they are.
    /// The generated corpus for `settings` on an embedded server with its network, and the
    /// workload on that server cut to its first `seconds`: a short run of one feature. `body`
    /// runs while the server is up.
    static func withServedWorkload<T>(_ settings: RunSettings, seconds: Int,
                                      _ body: (Workload, ImageServer) throws -> T) throws -> T {
        let corpus = ImageCorpus.generate(count: settings.resolvedImageCount, seed: settings.seed)
        let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: settings.network, seed: settings.seed)
        defer { server.shutdown() }
        let workload = Benchmark.makeWorkload(settings: settings, corpus: corpus, baseURL: server.baseURL)
        return try body(workload.prefix(frames: seconds * settings.fps), server)
    }

    static func withoutWarmUp(_ arguments: [String]) -> [String] {
        let isRun = (arguments.first.map { $0 == "run" || $0.hasPrefix("-") } ?? true)
            && !arguments.contains { ["--help", "-h", "--generate-completion-script", "--version"].contains($0) }
        return isRun && !arguments.contains("--warmup-seconds") ? arguments + ["--warmup-seconds", "0"] : arguments
    }

    /// How much longer than a plain build a wall-clock bound may allow: ThreadSanitizer (which
    /// scripts/test runs the suite under once, `TSAN_OPTIONS` set) slows every decode and report
    /// several times over. Bounds stay tight where the issue gives them, in plain builds.
    static let sanitizerSlack: Double = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil ? 1 : 3

    /// Runs the imgbench binary to the end: its exit status and its stdout and stderr together.
    /// `instrumented`: the ThreadSanitizer build (`instrumentedExecutable`), for a child whose own
    /// threads are what the test is about.
    static func imgbench(_ arguments: [String], instrumented: Bool = false) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = instrumented ? instrumentedExecutable : executable
        process.arguments = withoutWarmUp(arguments)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    static func temporaryDirectory(_ name: String = #function) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("imgbench-tests-\(name.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Asserts two byte values are within a tolerance (JPEG is lossy).
func close(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
}

/// Runs blocking test code on a thread of its own, so it never occupies one of the cooperative
/// pool's few threads (one per core) that the async strategy and Swift Testing itself need.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// The imgbench binary started in the background, its progress going to a log file, for tests
/// that act on a run in progress (signals, killing its server).
struct BackgroundRun {
    let process = Process()
    let log: URL

    /// `descriptorLimit`: run it under `ulimit -n` that many open files. `standardOutput`: where
    /// its standard output goes (nowhere by default). The instrumented build: a run acted on while
    /// it goes (signals, a server killed under it, `imgbench serve`) is about its own threads.
    init(_ arguments: [String], log: URL, descriptorLimit: Int? = nil, standardOutput: URL? = nil) throws {
        self.log = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let executable = Fixtures.instrumentedExecutable
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", executable.path]
                + Fixtures.withoutWarmUp(arguments)
        } else {
            process.executableURL = executable
            process.arguments = Fixtures.withoutWarmUp(arguments)
        }
        if let standardOutput {
            _ = FileManager.default.createFile(atPath: standardOutput.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: standardOutput)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Waits until scrolling has begun (the progress names the trace) and `condition` holds:
    /// true then, false if the process ended or 120 s passed first. A condition, not a fixed
    /// time after the start, which a busy shared machine can make too short.
    func waitUntilScrolling(and condition: () -> Bool = { true }) -> Bool {
        waitUntil(deadline: 120, every: 0.05) { !process.isRunning || (output.contains("scroll trace") && condition()) }
            && process.isRunning
    }
}

/// The suites that run imgbench (or nginx) as child processes, one after another: each spawns
/// several processes that scroll in real time, and on a 2-core machine running them side by side
/// starves them all (dropped frames, runs that outlast their waits). This chain is the
/// ThreadSanitizer pass's critical path: 447 s alone (most children run the plain release build,
/// `Fixtures.executable`), 290 s for every in-process suite alone, 673 s side by side in one
/// process, where in-process tests blocking the cooperative pool's two threads held up the
/// chain's next test. So scripts/test runs it in a test process of its own, beside one for the
/// other suites, which then runs a few of the chain's suites judged on counts and output only
/// (its `chain_tail`), still one at a time. A second chain inside one process, tried earlier,
/// failed two tests on the load (a report whose host was too loaded to rank a cell; a 5 s fetch
/// in an in-process test).
@Suite("Child processes", .serialized)
enum ChildProcessRuns {}

extension Fixtures {
    /// A count of what a real run's rows asked for (requests, rows visited, cache entries they
    /// touched) against what every row of its feed gives. Exact where the loop never woke late. A
    /// starved host (other suites beside it, ThreadSanitizer, two cores) wakes it more than a
    /// frame late, and the rows that flew by meanwhile were never on screen: then the count is
    /// fewer, never none and never more than `ceiling` (the exact count unless given). How many
    /// fewer depends on the starvation, so no lower share is asserted.
    static func countsEveryRow(_ count: Int, exactly expected: Int, lateWakes: Int, ceiling: Int? = nil) -> Bool {
        lateWakes == 0 ? count == expected : count > 0 && count <= (ceiling ?? expected)
    }
}
