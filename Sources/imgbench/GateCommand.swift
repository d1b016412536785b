import ArgumentParser
import Foundation
import ImageBench

/// `imgbench gate`: checks a result set against a baseline; exit 1 on a real regression.
struct GateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Fail (exit 1) when a metric regresses beyond its threshold and beyond run-to-run noise.",
        discussion: """
        Thresholds: 'latency_p95_ms < 250' (absolute limit), 'latency_p95_ms +10%' (may get 10% worse), \
        'memory_hit_rate -0.02' (may get 0.02 worse). A check fails when the median change exceeds its threshold \
        and, with at least 3 runs on each side, a two-sided Mann-Whitney U test finds the repeats different.
        """)

    @Option(help: "The baseline results directory.")
    var baseline: String

    @Option(help: "The results directory to check (a fresh run from the baseline's configuration is not yet supported).")
    var current: String

    @Option(name: .customLong("threshold"), help: "A threshold; repeat the flag for several.")
    var thresholds: [String] = []

    @Option(name: .customLong("thresholds"), help: "A file of thresholds, one per line (# starts a comment).")
    var thresholdsFile: String?

    @Option(help: "Significance level of the Mann-Whitney test.")
    var alpha = 0.05

    @Option(help: "Where to write gate.md and gate.json (default: the current results directory).")
    var out: String?

    func validate() throws {
        _ = try parsedThresholds()
        guard alpha > 0 && alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1 (got \(alpha))") }
    }

    func run() throws {
        let rules = try parsedThresholds()
        let base: ResultsDirectory, now: ResultsDirectory
        do {
            base = try ResultsDirectory(path: baseline)
            now = try ResultsDirectory(path: current)
        } catch {
            FileHandle.standardError.write(Data("imgbench gate: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
        let evaluation = GateEvaluation(baseline: base, current: now, thresholds: rules, alpha: alpha)
        guard !evaluation.checks.isEmpty else {
            FileHandle.standardError.write(Data("imgbench gate: no threshold applies to a strategy × concurrency cell both directories have\n".utf8))
            throw ExitCode(2)
        }
        print(evaluation.text)
        let directory = URL(fileURLWithPath: out ?? current)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try evaluation.markdown.write(to: directory.appendingPathComponent("gate.md"), atomically: true, encoding: .utf8)
            try evaluation.json().write(to: directory.appendingPathComponent("gate.json"), atomically: true, encoding: .utf8)
        } catch {
            FileHandle.standardError.write(Data("imgbench gate: cannot write gate.md/gate.json to \(directory.path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
        if evaluation.regressed { throw ExitCode(1) }
    }

    private func parsedThresholds() throws -> [Threshold] {
        var texts = thresholds
        if let thresholdsFile {
            guard let content = try? String(contentsOfFile: thresholdsFile, encoding: .utf8) else {
                throw ValidationError("--thresholds: cannot read \(thresholdsFile)")
            }
            for (number, line) in content.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let text = String(line.prefix { $0 != "#" }).trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty else { continue }
                do {
                    _ = try Threshold(parsing: text)
                } catch {
                    throw ValidationError("\(thresholdsFile):\(number + 1): \(error.description)")
                }
                texts.append(text)
            }
        }
        guard !texts.isEmpty else { throw ValidationError("give at least one --threshold (or --thresholds FILE)") }
        var rules: [Threshold] = []
        for text in texts {
            do {
                rules.append(try Threshold(parsing: text))
            } catch {
                throw ValidationError(error.description)
            }
        }
        return rules
    }
}
