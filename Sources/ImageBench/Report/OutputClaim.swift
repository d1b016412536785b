import Foundation

/// A results directory (`--out`) claimed by one run, so two runs started into it at once cannot
/// both pass the emptiness check and leave a mix of their files: the claim is a file created with
/// `O_EXCL` (the one atomic test-and-set a file system offers), holding the claimant's pid. It is
/// removed when the run is over; one left by a run that was killed is taken over once its pid is
/// gone.
public struct OutputClaim: Sendable {
    public static let fileName = ".imgbench-claim"

    /// Why a directory could not be claimed; `usage` errors are the user's to fix (exit 64).
    public struct ClaimError: Error, CustomStringConvertible {
        public let description: String
        public let usage: Bool
    }

    public let directory: URL
    /// The run made the directory (so it removes it again if it writes nothing).
    public let created: Bool

    /// Claims `directory`, making it if needed. Refused when it holds anything and `force` is
    /// off, or when another live run holds it.
    public static func claim(_ directory: URL, force: Bool) throws(ClaimError) -> OutputClaim {
        let path = directory.path
        let existing = try? FileManager.default.contentsOfDirectory(atPath: path)
        if let existing, !existing.isEmpty, !force {
            throw ClaimError(description: "--out \(path) is not empty: pass --force to write into it (imgbench's files are replaced)", usage: true)
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ClaimError(description: "cannot create --out \(path): \(Self.reason(of: error))", usage: false)
        }
        let claim = directory.appendingPathComponent(fileName).path
        for attempt in 0..<2 {
            let descriptor = open(claim, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                let pid = Array("\(getpid())\n".utf8)
                _ = pid.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                close(descriptor)
                return OutputClaim(directory: directory, created: existing == nil)
            }
            let failure = errno
            guard failure == EEXIST else {
                throw ClaimError(description: "cannot write results to \(path): \(String(cString: strerror(failure)))", usage: false)
            }
            let holder = (try? String(contentsOfFile: claim, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            // No pid yet: a run is between creating its claim and writing it, so it is alive.
            guard let holder, holder > 0, attempt == 0, kill(holder, 0) != 0, errno == ESRCH else {
                throw ClaimError(description: "--out \(path) is being written by another imgbench run\(holder.map { " (pid \($0))" } ?? ""): choose another --out",
                                 usage: false)
            }
            unlink(claim)  // left by a run that is gone
        }
        throw ClaimError(description: "--out \(path) is being written by another imgbench run: choose another --out", usage: false)
    }

    /// Gives the directory up: the claim goes, and so does the directory if the run made it and
    /// wrote nothing into it.
    public func release(wroteResults: Bool) {
        unlink(directory.appendingPathComponent(Self.fileName).path)
        if !wroteResults, created, (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true {
            rmdir(directory.path)
        }
    }

    /// The operating system's reason behind a Foundation file error ("Not a directory"), which
    /// its own text ("error 512") hides.
    public static func reason(of error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }
}
