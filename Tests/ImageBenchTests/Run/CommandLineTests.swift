import Foundation
import Testing
@testable import ImageBench

/// Bad command lines and manifests through the real binary: one line naming the problem, exit
/// 64, nothing run. Unusable output directories: exit 2 before any work.
@Suite("Command-line errors")
struct CommandLineTests {
    static func stderrLines(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    @Test("bad flags and a bad manifest line: one line naming the problem, exit 64")
    func usageErrors() async throws {
        let directory = try Fixtures.temporaryDirectory("usage")
        defer { try? FileManager.default.removeItem(at: directory) }
        let manifest = directory.appendingPathComponent("feed.csv")
        try "url,bytes\nhttp://127.0.0.1:9/a.jpg,100\nhttp://127.0.0.1:9/b.jpg,lots\n".write(to: manifest, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--rows", "abc"], "--rows"),
            (["--rows", "0"], "--rows"),
            (["--concurrency", "0"], "--concurrency"),
            (["--strategies", "bogus"], "bogus"),
            (["--network", "nonsense"], "nonsense"),
            (["--faults", "explode=5%"], "explode"),
            (["--source", manifest.path], "feed.csv:3"),
            (["gate", "--baseline", directory.path, "--threshold", "latency_p59_ms +5%"], "latency_p59_ms"),
            // Numbers outside their range (these crashed, allocated without end or read as a
            // missing value): the flag and its range, never a crash.
            (["--rows", "-1"], "--rows must be between 1 and 1000000 (got -1)"),
            (["--rows", "9000000000000000000"], "--rows must be between 1 and 1000000"),
            (["--concurrency", "-3"], "--concurrency must be between 1 and 1000 (got -3)"),
            (["--timeout", "inf"], "--timeout must be between 0.001 and 3600 (got inf)"),
            (["--timeout", "1e300"], "--timeout must be between 0.001 and 3600 (got 1e+300)"),
            (["--memory-cache-mb", "9000000000000000"], "--memory-cache-mb must be between 0 and 65536"),
            (["--disk-cache-mb", "9000000000000000"], "--disk-cache-mb must be between 1 and 1048576"),
            (["--stall-timeout", "9000000000000000"], "--stall-timeout must be between 1 and 3600"),
            (["--clients", "1000000"], "--clients must be between 1 and 1000"),
            (["--images", "100000000"], "--images must be between 1 and 10000"),
            (["--max-pixels", "-5"], "--max-pixels must be between 1 and 1000000000 (got -5)"),
            (["--max-decode-mb", "5000"], "--max-decode-mb must be between 1 and 4096 (got 5000)"),
            (["--warmup-seconds", "-0.5"], "--warmup-seconds must be between 0 and 60 (got -0.5)"),
            (["bogus"], "unknown subcommand 'bogus' (subcommands: run, compare, gate, serve, corpus, merge, decoders, explore, calibrate, report; see imgbench --help)"),
            (["--feed", "random"], "--feed: unknown value 'random' (valid: sequential, zipf)"),
            (["--format", "xml"], "--format"),
        ]
        try await onOwnThread {
            for (arguments, named) in cases {
                let run = try Fixtures.imgbench(arguments + ["--out", directory.appendingPathComponent("never").path])
                let lines = Self.stderrLines(run.output)
                #expect(run.status == 64, "\(arguments): \(run.output)")
                // "imgbench: …", or "imgbench gate: …" for a subcommand's own flags.
                #expect(lines.count == 1 && lines[0].hasPrefix("imgbench") && lines[0].contains(named), "\(arguments): \(lines)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("never").path))
    }

    @Test("every number a user can type, fed 0, -1, a huge value, inf, nan and text: never a crash, exit 64 and one line naming it")
    func everyNumericFlag() async throws {
        // (subcommand, flag, whether 0 is inside its range, and so a valid value that would start work)
        let flags: [([String], String, Bool)] = [
            ([], "--rows", false), ([], "--concurrency", false), ([], "--fps", false), ([], "--seed", true),
            ([], "--memory-cache-mb", true), ([], "--disk-cache-mb", false), ([], "--prefetch", true), ([], "--repeat", false),
            ([], "--warmup", true), ([], "--warmup-seconds", true), ([], "--images", false), ([], "--timeout", false),
            ([], "--stall-timeout", false), ([], "--retries", true), ([], "--max-pixels", false), ([], "--max-decode-mb", false), ([], "--max-bytes", false),
            ([], "--clients", false), (["serve"], "--port", true), (["serve"], "--images", false),
            (["serve"], "--request-timeout", false), (["serve"], "--max-connections", false), (["corpus", "--out", "/nonexistent/x"], "--images", false),
        ]
        let directory = try Fixtures.temporaryDirectory("numbers")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await onOwnThread {
            for (prefix, flag, zeroIsValid) in flags {
                for value in ["0", "-1", "99999999999999999999999", "inf", "nan", "abc"] where !(zeroIsValid && value == "0") {
                    let isRun = prefix.isEmpty
                    let arguments = prefix + [flag, value] + (isRun ? ["--out", directory.appendingPathComponent("never").path] : [])
                    let run = try Fixtures.imgbench(arguments)
                    let lines = Self.stderrLines(run.output)
                    #expect(run.status == 64, "\(arguments): status \(run.status): \(run.output)")
                    #expect(lines.count == 1 && lines[0].hasPrefix("imgbench") && lines[0].contains(flag), "\(arguments): \(lines)")
                }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("never").path))
    }

    @Test("imgbench --help shows run's options in groups; completions offer the values of enumerated flags")
    func help() async throws {
        try await onOwnThread {
            let help = try Fixtures.imgbench(["--help"])
            #expect(help.status == 0)
            for text in ["SUBCOMMANDS:", "--rows <rows>", "--network <network>", "THE FEED AND ITS SCROLLING:", "LOAD: MANY USERS, MANY MACHINES:",
                         "TESTING AIDS:", "--format <format>"] {
                #expect(help.output.contains(text), "\(text) not in imgbench --help")
            }
            // run's help is the catalog's, however it is asked for; a flag's own help still runs nothing.
            for arguments in [["run", "--help"], ["--rows", "40", "-h"], ["help", "run"]] {
                let run = try Fixtures.imgbench(arguments)
                #expect(run.status == 0 && run.output.contains("THE PIPELINE: STRATEGIES, CACHES AND POLICIES:")
                        && run.output.contains("--transport <transport>") && !run.output.contains("SUBCOMMANDS:"), "\(arguments): \(run.output)")
            }
            let bash = try Fixtures.imgbench(["--generate-completion-script", "bash"])
            for value in ["operation-queue", "suspend-while-dragging", "fling", "sepia", "multi", "loopback", "zipf", "--no-coalesce", "--disk-read"] {
                #expect(bash.output.contains(value), "\(value) not offered by the bash completion")
            }
        }
    }

    @Test("--format json: stdout is summary.json alone (Python's json reads it), the verdict and table go to stderr")
    func jsonToStdout() async throws {
        try await onOwnThread {
            let directory = try Fixtures.temporaryDirectory("json-stdout")
            defer { try? FileManager.default.removeItem(at: directory) }
            let process = Process()
            process.executableURL = Fixtures.executable
            process.arguments = ["--rows", "120", "--images", "30", "--strategies", "threads", "--network", "loopback", "--format", "json",
                                 "--warmup-seconds", "0", "--out", directory.appendingPathComponent("results").path]
            let stdout = directory.appendingPathComponent("stdout.json"), stderr = directory.appendingPathComponent("stderr.txt")
            for file in [stdout, stderr] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
            process.standardOutput = try FileHandle(forWritingTo: stdout)
            process.standardError = try FileHandle(forWritingTo: stderr)
            try process.run()
            process.waitUntilExit()
            let errors = try String(contentsOf: stderr, encoding: .utf8)
            #expect(process.terminationStatus == 0, "\(errors)")
            let parsed = try runPython("import json, sys; d = json.load(open(sys.argv[1])); print(len(d['runs']), d['runs'][0]['strategy'])",
                                       arguments: [stdout.path])
            #expect(parsed.trimmingCharacters(in: .whitespacesAndNewlines) == "1 threads")
            #expect(errors.contains("strategy") && errors.contains("Results: "), "\(errors)")
            let written = try String(contentsOf: directory.appendingPathComponent("results/summary.json"), encoding: .utf8)
            #expect(try String(contentsOf: stdout, encoding: .utf8) == written, "stdout is summary.json, byte for byte")
        }
    }

    @Test("--clients beyond what the machine can hold: refused with the estimate (exit 2) before any corpus is generated, nothing left behind")
    func memoryRefusal() async throws {
        try await onOwnThread {
            let directory = try Fixtures.temporaryDirectory("too-big")
            defer { try? FileManager.default.removeItem(at: directory) }
            let run = try Fixtures.imgbench(["--clients", "1000", "--out", directory.appendingPathComponent("results").path])
            #expect(run.status == 2, "\(run.output)")
            #expect(run.output.contains("this plan needs about") && run.output.contains("memory caches (1000 users"), "\(run.output)")
            #expect(!run.output.contains("generating"), "it allocated the corpus first")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("results").path))
        }
    }

    @Test("an --out that holds files is refused (exit 64) unless --force, which writes into it")
    func occupiedOut() async throws {
        let directory = try Fixtures.temporaryDirectory("occupied")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mine = directory.appendingPathComponent("notes.txt")
        try "mine".write(to: mine, atomically: true, encoding: .utf8)
        try await onOwnThread {
            let refused = try Fixtures.imgbench(["--rows", "40", "--images", "10", "--network", "loopback", "--out", directory.path])
            #expect(refused.status == 64 && Self.stderrLines(refused.output).count == 1, "\(refused.output)")
            #expect(refused.output.contains("is not empty: pass --force"), "\(refused.output)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("summary.csv").path))
            let forced = try Fixtures.imgbench(["--rows", "40", "--images", "10", "--network", "loopback", "--strategies", "threads",
                                                "--quiet", "--force", "--out", directory.path])
            #expect(forced.status == 0, "\(forced.output)")
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("summary.csv").path))
            #expect(try String(contentsOf: mine, encoding: .utf8) == "mine", "other files are left alone")
        }
    }

    @Test("an --out or --disk-cache that cannot be written fails with exit 2 before the run")
    func unwritableDirectories() async throws {
        let directory = try Fixtures.temporaryDirectory("unwritable")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a-file")
        try "not a directory".write(to: file, atomically: true, encoding: .utf8)
        try await onOwnThread {
            // Under a regular file: no directory can be made there, whoever runs the test (root too).
            let out = try Fixtures.imgbench(["--rows", "50", "--out", file.appendingPathComponent("results").path])
            // The path and the operating system's reason, not Foundation's "error 512".
            #expect(out.status == 2 && out.output.contains("cannot create --out \(file.path)/results: Not a directory"), "\(out.output)")
            #expect(!out.output.contains("generating"), "the run must not start")
            let cache = try Fixtures.imgbench(["--rows", "50", "--disk-cache", file.appendingPathComponent("cache").path,
                                                   "--out", directory.appendingPathComponent("results").path])
            #expect(cache.status == 2 && cache.output.contains(file.appendingPathComponent("cache").path), "\(cache.output)")
            #expect(!cache.output.contains("generating"), "the run must not start")
        }
    }
}

extension ChildProcessRuns {
    @Suite("imgbench report")
    struct ReportCommandTests {
        @Test("imgbench report writes report.md again from the data files, with the same findings and table")
        func regenerate() async throws {
            try await onOwnThread {
                let directory = try Fixtures.temporaryDirectory("report-again")
                defer { try? FileManager.default.removeItem(at: directory) }
                let results = directory.appendingPathComponent("results")
                let run = try Fixtures.imgbench(["--rows", "120", "--images", "30", "--strategies", "threads,gcd", "--concurrency", "1,4",
                                                 "--network", "loopback", "--quiet", "--out", results.path])
                try #require(run.status == 0, "\(run.output)")
                let original = try String(contentsOf: results.appendingPathComponent("report.md"), encoding: .utf8)
                try FileManager.default.removeItem(at: results.appendingPathComponent("report.md"))
                let again = try Fixtures.imgbench(["report", results.path])
                #expect(again.status == 0, "\(again.output)")
                let rewritten = try String(contentsOf: results.appendingPathComponent("report.md"), encoding: .utf8)
                func lines(_ text: String, _ prefix: String) -> [Substring] { text.split(separator: "\n").filter { $0.hasPrefix(prefix) } }
                // Sentences and table rows are the same in number and subject; the numbers may differ in
                // the last rounded digit, as the data files keep 3 decimals.
                // Six findings or more when every cell is ranked. A host too loaded to rank some cells
                // has fewer to say (a CI run: three, with two of four cells not ranked), one too loaded
                // to rank any (the verdict "could not measure") fewer still; the two reports must still
                // say the same.
                let ranked = !original.contains("**Verdict: could not measure")
                let findings = lines(original, "- ").count
                let least = !ranked ? 0 : original.contains("\n- Not ranked: ") ? 3 : 6
                #expect(lines(rewritten, "- ").count == findings && findings >= least, "\(original)\n----\n\(rewritten)")
                #expect(lines(rewritten, "| ").map { $0.prefix(16) } == lines(original, "| ").map { $0.prefix(16) })
                // The verdict is the same kind of sentence (a loaded machine may make it "could not measure").
                func verdict(_ text: String) -> Substring? { lines(text, "**").first?.prefix { $0 != ":" } }
                #expect(verdict(rewritten) != nil && verdict(rewritten) == verdict(original), "\(rewritten.prefix(300))")
                #expect(rewritten.hasPrefix("# imgbench report\n\n**") && rewritten.contains("\n\n120 rows"), "\(rewritten.prefix(300))")
                #expect(try Fixtures.imgbench(["report", directory.appendingPathComponent("nothing").path]).status == 2)
            }
        }
    }
}
