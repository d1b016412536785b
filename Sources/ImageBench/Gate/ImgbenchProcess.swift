import Foundation

/// An `imgbench` executable run as a child process. The gate runs a baseline's configuration
/// again this way, and A/B mode runs two builds side by side: each run gets a fresh process (its
/// own server, corpus and heap), so one side's leftovers cannot favour the other.
public struct ImgbenchProcess: Sendable, Equatable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    let executable: String

    public init(executable: String) {
        self.executable = executable
    }

    /// The executable this process is running.
    public static var current: ImgbenchProcess {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ImgbenchProcess(executable: path)
    }

    /// Runs `plan` (then `extra` arguments) into DIRECTORY and reads the results back. Its
    /// terminal output goes to DIRECTORY/imgbench.log, which a failure quotes; each run it
    /// finishes ("[2/6] gcd ×5 #1: done in 37.0 s: …") also goes to `progress`, so a gate's fresh
    /// runs are not a silent wait.
    func run(_ plan: BenchmarkPlan, extra: [String] = [], into directory: URL,
                    progress: (String) -> Void = { _ in }) throws(Failure) -> ResultsDirectory {
        let arguments = RunArguments.invocation(plan, extra: extra, into: directory)
        let log = directory.appendingPathComponent("imgbench.log")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw CocoaError(.fileWriteNoPermission) }
            let output = try FileHandle(forWritingTo: log)
            defer { try? output.close() }
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // Read to the end on this thread: everything into the log, finished runs to `progress`.
            var pending = Data()
            while true {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                output.write(chunk)
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    if line.hasPrefix("["), line.contains(": done in ") { progress(line) }
                }
            }
            process.waitUntilExit()
        } catch {
            throw Failure(description: "cannot run \(executable): \(error.localizedDescription)")
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let lastLine = (try? String(contentsOf: log, encoding: .utf8))?
                .split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            let how = process.terminationReason == .exit ? "exited with \(process.terminationStatus)" : "was killed by signal \(process.terminationStatus)"
            throw Failure(description: "\(([executable] + arguments).map(ShellWords.quoted).joined(separator: " ")) \(how)"
                + (lastLine.map { ": \($0)" } ?? ""))
        }
        do {
            return try ResultsDirectory(path: directory.path)
        } catch {
            throw Failure(description: error.description)
        }
    }
}
