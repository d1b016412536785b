import Testing
@testable import ImageBench

/// The catalog's parser at its edges, the lists that could not differ, and the commands the
/// verdict prints.
@Suite("Run flags at their edges")
struct RunFlagEdgeTests {
    static func refusal(_ words: [String]) -> String {
        do {
            _ = try RunOptions(parsing: words).plan()
            return "accepted"
        } catch {
            return error.description
        }
    }

    @Test("help is asked for where a flag goes, not as a flag's value; --no- forms that do not exist are said so")
    func helpAndInversions() {
        #expect(RunOptions.asksForHelp(["--rows", "5", "-h"]) && RunOptions.asksForHelp(["--coalesce", "--help"]) && RunOptions.asksForHelp(["--help"]))
        #expect(!RunOptions.asksForHelp(["--out", "-h"]) && !RunOptions.asksForHelp(["--source", "--help"]) && !RunOptions.asksForHelp(["--rows", "5"]))
        #expect(Self.refusal(["--no-progressive"]) == "--progressive has no --no- form: leave it out to keep it off")
        #expect(Self.refusal(["--no-coalesce=x"]) == "--no-coalesce takes no value (got '--no-coalesce=x')")
    }

    @Test("a list whose values cannot differ is refused: --disk-read without a disk cache, --filter or --decode-concurrency with --no-decode")
    func listsThatCannotDiffer() {
        #expect(Self.refusal(["--disk-read", "background,main"]) == "--disk-read: a list changes nothing without --disk-cache")
        #expect(Self.refusal(["--disk-read", "background,main", "--disk-cache", "/tmp/imgbench-edge-cache"]) == "accepted")
        #expect(Self.refusal(["--filter", "none,sepia", "--no-decode"]) == "--filter: a list changes nothing with --no-decode")
        #expect(Self.refusal(["--decode-concurrency", "off,2", "--no-decode"]) == "--decode-concurrency: a list changes nothing with --no-decode")
    }

    @Test("the verdict's commands: only what differs from the defaults, quoted for a shell, read back to the same plan")
    func commands() throws {
        let words = ["--rows", "600", "--source", "http://cdn.example/img/{id}.jpg?w=88&q=80", "--strategies", "gcd", "--coalesce", "on,off"]
        let plan = try RunOptions(parsing: words).plan()
        let command = RunArguments.shellCommand(plan)
        #expect(command.hasPrefix("imgbench ") && command.contains("--rows 600") && command.contains("'http://cdn.example/img/{id}.jpg?w=88&q=80'")
                && command.contains("--coalesce on,off") && !command.contains("--clients"), "\(command)")
        let again = try ShellWords.split(command)
        #expect(try RunOptions(parsing: Array(again.dropFirst())).plan() == plan)
        #expect(ShellWords.quoted("it's") == "'it'\\''s'" && (try? ShellWords.split(ShellWords.quoted("it's"))) == ["it's"])
    }

    @Test("a rest's number read back: whose trace, the first screen and the trace's end")
    func restLabels() {
        let one = [0, 1, 2].map { 1_000_000_000_000 + $0 }, other = [0, 1].map { $0 }
        let all = (one + other).sorted()
        #expect(FewRests.label(1_000_000_000_000, among: all, traces: 2) == " (user 2, session 1: the first screen)")
        #expect(FewRests.label(1_000_000_000_002, among: all, traces: 2) == " (user 2, session 1: the trace's end)")
        #expect(FewRests.label(1, among: all, traces: 2) == " (user 1, session 1: the trace's end)")
        #expect(FewRests.label(1_000_000_000_001, among: all, traces: 2) == " (user 2, session 1)")
        #expect(FewRests.label(0, among: [0, 1, 2], traces: 1) == " (the first screen)" && FewRests.label(1, among: [0, 1, 2], traces: 1) == "")
    }
}
