import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Progress as a person and as a CI log see it: under a pseudo-terminal one line redrawn in
    /// place with a bar and an ETA; piped, one line per run of the matrix.
    @Suite("Terminal progress")
    struct ProgressTests {
        // A short warm-up, so its progress shows too.
        static let arguments = ["--rows", "400", "--images", "40", "--strategies", "threads,gcd", "--network", "loopback",
                                "--warmup-seconds", "1"]

        @Test("under a pseudo-terminal the bar updates in place; piped, one line per matrix cell")
        func progress() async throws {
            try await onOwnThread {
                let directory = try Fixtures.temporaryDirectory("progress")
                defer { try? FileManager.default.removeItem(at: directory) }
                // Python's pty module gives the binary a real terminal on stderr and stdout.
                let script = """
                import os, pty, sys
                chunks = []
                def read(fd):
                    data = os.read(fd, 65536)
                    chunks.append(data)
                    return data
                status = pty.spawn(sys.argv[1:], read)
                sys.stdout.write(repr(b"".join(chunks).decode("utf-8", "replace")))
                sys.exit(os.waitstatus_to_exitcode(status))
                """
                let terminal = try runPython(script, arguments: [Fixtures.instrumentedExecutable.path] + Self.arguments
                                             + ["--out", directory.appendingPathComponent("tty").path])
                // A terminal that cannot move its cursor gets plain lines, no escapes at all.
                let dumb = try runPython("import os\nos.environ['TERM'] = 'dumb'\n" + script,
                                         arguments: [Fixtures.instrumentedExecutable.path, "--rows", "100", "--images", "20", "--strategies", "threads",
                                                     "--network", "loopback", "--warmup-seconds", "0",
                                                     "--out", directory.appendingPathComponent("dumb").path])
                #expect(!dumb.contains("\\x1b") && dumb.contains("[1/1] threads ×5 #1: done in"), "TERM=dumb: \(dumb.prefix(400))")
                #expect(terminal.contains("\\r\\x1b[K"), "no in-place redraw: \(terminal.prefix(300))")
                #expect(terminal.contains("s left") && terminal.contains("[#"), "no bar: \(terminal.prefix(300))")
                #expect(terminal.contains("threads ×5 warm-up"), "the warm-up before the run shows: \(terminal.prefix(600))")

                let piped = try BackgroundRun(Self.arguments + ["--out", directory.appendingPathComponent("pipe").path],
                                              log: directory.appendingPathComponent("stderr.log"))
                piped.process.waitUntilExit()
                let lines = piped.output.split(separator: "\n")
                #expect(!piped.output.contains("\r") && !piped.output.contains("\u{1B}["), "escapes in a log")
                // One line per measured run: the warm-ups before them print none, nor does the bar's end.
                #expect(lines.filter { $0.hasPrefix("[") }.map { String($0.prefix(5)) } == ["[1/2]", "[2/2]"], "\(lines)")
                #expect(!piped.output.contains("test done"), "\(lines)")
                #expect(terminal.contains("test done: 100%, 2 runs in "), "\(terminal.suffix(600))")
            }
        }

        /// Issue 32: with `--clients 10 --duration 10s` the bar followed user 0's trace, read
        /// "100% ETA 0 s" after its 8 s and counted that user's requests alone.
        @Test("--clients 10 --duration 10s: no redrawn line reads 100%, and the requests are every user's")
        func wholeTest() async throws {
            try await onOwnThread {
                let directory = try Fixtures.temporaryDirectory("progress-clients")
                defer { try? FileManager.default.removeItem(at: directory) }
                // The terminal's bytes as they came, escapes and all (pty.spawn copies them to stdout).
                let script = """
                import os, pty, sys
                sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))
                """
                let out = directory.appendingPathComponent("run")
                let terminal = try runPython(script, arguments: [Fixtures.instrumentedExecutable.path, "--clients", "10", "--duration", "10s",
                                                                 "--rows", "400", "--images", "40", "--strategies", "threads",
                                                                 "--network", "loopback", "--warmup-seconds", "1", "--no-decode",
                                                                 "--out", out.path])
                let shown = terminal.components(separatedBy: "\r\u{1B}[K").flatMap { $0.components(separatedBy: .newlines) }
                    .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                let bars = shown.filter { $0.firstMatch(of: /\] \d+%/) != nil }
                try #require(bars.count > 10, "\(terminal.prefix(600))")
                #expect(!bars.contains { $0.contains("100%") }, "100% before the end: \(bars.filter { $0.contains("100%") })")
                #expect(shown.filter { $0.contains("100%") }.count == 1 && shown.contains { $0.hasPrefix("test done: 100%, 1 run in ") },
                        "\(shown.suffix(4))")
                let percents = bars.compactMap { $0.firstMatch(of: /\] (\d+)%/).flatMap { Int($0.1) } }
                #expect(percents == percents.sorted(), "the bar went back: \(percents)")
                // More requests than any one user made in the whole run.
                let shownRequests = bars.compactMap { $0.firstMatch(of: /requests (\d+)/).flatMap { Int($0.1) } }.max() ?? 0
                let clients = CSVTable.parse(try String(contentsOf: out.appendingPathComponent("clients.csv"), encoding: .utf8))
                let column = try #require(clients.first?.firstIndex(of: "requests"))
                let perUser = clients.dropFirst().compactMap { $0.count > column ? Int($0[column]) : nil }
                try #require(perUser.count == 10, "\(clients.count) rows in clients.csv")
                #expect(shownRequests > perUser.max()!, "shown \(shownRequests), users made \(perUser)")
                #expect(bars.contains { $0.contains("users 10") && $0.contains("s left") }, "\(bars.prefix(3))")
            }
        }
    }
}

@Suite("Terminal style")
struct TerminalStyleTests {
    @Test("bold only on a terminal without NO_COLOR or TERM=dumb; redraw only where the cursor can move")
    func style() throws {
        let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY)  // a pseudo-terminal: isatty holds
        try #require(terminal >= 0)
        defer { close(terminal) }
        #expect(TerminalStyle.allowsBold(terminal, environment: ["TERM": "xterm"]))
        #expect(TerminalStyle.allowsBold(terminal, environment: ["TERM": "xterm", "NO_COLOR": ""]), "an empty NO_COLOR is unset")
        #expect(!TerminalStyle.allowsBold(terminal, environment: ["TERM": "xterm", "NO_COLOR": "1"]))
        #expect(TerminalStyle.allowsRedraw(terminal, environment: ["TERM": "xterm", "NO_COLOR": "1"]))
        #expect(!TerminalStyle.allowsBold(terminal, environment: ["TERM": "dumb"]) && !TerminalStyle.allowsRedraw(terminal, environment: ["TERM": "dumb"]))
        let pipe = Pipe()
        #expect(!TerminalStyle.allowsBold(pipe.fileHandleForWriting.fileDescriptor, environment: ["TERM": "xterm"]))
    }
}
