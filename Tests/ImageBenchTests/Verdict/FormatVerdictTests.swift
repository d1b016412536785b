import Testing
@testable import ImageBench

/// The verdict's format line (`--formats`) on constructed runs (`VerdictTests.run`).
@Suite("The format verdict")
struct FormatVerdictTests {
    static func run(_ format: CorpusFormat, mean: Double, cpu: Double = 1, megabytes: Double = 10) -> RunResult {
        let draw = UInt64(ImageFormat.decodable.firstIndex { format == .only($0) } ?? 9)
        let base = VerdictTests.run(.threads, 5, mean: mean, megabytes: megabytes, noise: draw) {
            $0.format = format.description
            $0.cpuUserS = cpu
        }
        return RunResult(cell: RunCell(strategy: .threads, concurrency: 5, repetition: 1, format: format), summary: base.summary,
                         requests: base.requests, distributions: base.distributions)
    }

    @Test("the format with the least placeholder time is named, the others slower with their differences, and the costs given")
    func clearWinner() throws {
        let verdict = Verdict([Self.run(.only(.jpeg), mean: 20), Self.run(.only(.webp), mean: 12, cpu: 2),
                               Self.run(.only(.avif), mean: 15, cpu: 3, megabytes: 6)], traceFrames: 1_000)
        #expect(verdict.recommended?.name == "threads ×5 webp")
        #expect(verdict.lines[0].hasPrefix("Recommended: threads at a limit of 5 in webp:"), "\(verdict.lines)")
        let line = try #require(verdict.lines.first { $0.hasPrefix("Format:") })
        #expect(line.hasPrefix("Format: webp gives the least placeholder time at threads ×5, 1"), "\(line)")
        // The others in order, each with its difference from webp and its interval (the means carry ±5 ms noise).
        #expect(line.contains("; avif 1") && line.contains("(+3.") && line.contains("; jpeg ")
                && line.contains("(+8.") && line.components(separatedBy: ": slower").count == 3, "\(line)")
        #expect(line.contains("webp costs 5.00 ms CPU per displayed image, 2.0× JPEG's 2.50 ms"), "\(line)")
        // CPU per displayed image: 2 s over 400 images is 5 ms.
        #expect(line.contains("webp 5.00 ms") && line.contains("avif 7.50 ms") && line.contains("avif 15.0 kB"), "\(line)")
    }

    @Test("formats within the tie margin tie, broken as the main verdict breaks ties (bytes, then CPU): the line speaks of the recommended format")
    func tieBrokenByCost() throws {
        let verdict = Verdict([Self.run(.only(.webp), mean: 10, cpu: 2), Self.run(.only(.avif), mean: 10.1, cpu: 1)], traceFrames: 1_000)
        let line = try #require(verdict.lines.first { $0.hasPrefix("Format:") })
        #expect(line.hasPrefix("Format: avif at threads ×5, 10.") && line.contains("ties with another format and is chosen")
                && line.contains("webp 9.") && line.contains("a tie within"), "\(line)")
        #expect(verdict.recommended?.format == "avif")
        // Fewer bytes decide before CPU does.
        let bytes = Verdict([Self.run(.only(.jpeg), mean: 10, cpu: 1), Self.run(.only(.avif), mean: 10.1, cpu: 2, megabytes: 5)],
                            traceFrames: 1_000)
        #expect(bytes.recommended?.format == "avif" && bytes.lines.contains { $0.hasPrefix("Format: avif at threads ×5") }, "\(bytes.lines)")
        #expect(bytes.lines.contains { $0.contains("avif costs 5.00 ms CPU per displayed image, 2.0× JPEG's 2.50 ms.") }, "\(bytes.lines)")
        // Costs alike: the faster mean stands.
        let alike = Verdict([Self.run(.only(.webp), mean: 10, cpu: 1.05), Self.run(.only(.avif), mean: 10.1, cpu: 1)], traceFrames: 1_000)
        #expect(alike.lines.contains { $0.hasPrefix("Format: webp at threads ×5") } && alike.recommended?.format == "webp", "\(alike.lines)")
        // CPU within its noise of JPEG's is said to be about the same.
        let same = Verdict([Self.run(.only(.jpeg), mean: 10, cpu: 1), Self.run(.only(.webp), mean: 5, cpu: 1.05)], traceFrames: 1_000)
        #expect(same.lines.contains { $0.contains("about JPEG's 2.50 ms (within the CPU's noise)") }, "\(same.lines)")
    }

    @Test("one format gives no format line; an unrankable format is said")
    func oneFormat() {
        #expect(!Verdict([Self.run(.only(.jpeg), mean: 20)], traceFrames: 1_000).lines.contains { $0.hasPrefix("Format") })
        let failed = Self.run(.only(.avif), mean: 5)
        var broken = failed.summary
        broken.displayed = 0
        let verdict = Verdict([Self.run(.only(.jpeg), mean: 20),
                               RunResult(cell: failed.cell, summary: broken, requests: failed.requests, distributions: failed.distributions)],
                              traceFrames: 1_000)
        #expect(verdict.lines.contains { $0.hasPrefix("Formats: only jpeg could be ranked") }, "\(verdict.lines)")
    }

    @Test("a lowest mean that no other format is shown to beat is said as no more than that")
    func undecided() throws {
        // Noise three times the mean (clipped at 0): means 0.5 ms apart cannot be told apart, nor called a tie.
        func noisy(_ format: CorpusFormat, _ mean: Double, draw: UInt64) -> RunResult {
            let base = VerdictTests.run(.threads, 5, mean: mean, noise: draw, spread: 60) {
                $0.format = format.description
            }
            return RunResult(cell: RunCell(strategy: .threads, concurrency: 5, repetition: 1, format: format), summary: base.summary,
                             requests: base.requests, distributions: base.distributions)
        }
        let verdict = Verdict([noisy(.only(.jpeg), 20.5, draw: 1), noisy(.only(.avif), 20, draw: 2)], traceFrames: 1_000)
        let line = try #require(verdict.lines.first { $0.hasPrefix("Format:") })
        #expect(line.contains("has the lowest mean placeholder time") && line.contains("no other format is shown slower")
                && line.contains("undecided"), "\(line)")
        // One shown slower, one undecided: no "gives the least".
        let mixed = Verdict([noisy(.only(.jpeg), 45, draw: 1), noisy(.only(.avif), 20, draw: 2), noisy(.only(.webp), 20.5, draw: 3)],
                            traceFrames: 1_000)
        let partly = try #require(mixed.lines.first { $0.hasPrefix("Format:") })
        #expect(partly.contains("shown faster than some formats only") && partly.contains(": slower)") && partly.contains(": undecided)"),
                "\(partly)")
    }
}
