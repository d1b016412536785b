import Foundation

/// A results directory (`--out`) claimed by one run, so two runs started into it at once cannot
/// both pass the emptiness check and leave a mix of their files: the claim is an exclusive
/// `flock` on a claim file (holding the claimant's pid, for the message), which the kernel drops
/// when the process ends however it ends, so a killed run's claim needs no taking over. After the
/// lock, the directory is checked again: a run that was paused between its check and its claim
/// must not write over another's finished results.
public final class OutputClaim: Sendable {
    static let fileName = ".imgbench-claim"

    /// Why a directory could not be claimed; `usage` errors are the user's to fix (exit 64).
    public struct ClaimError: Error, CustomStringConvertible {
        public let description: String
        public let usage: Bool
    }

    let directory: URL
    /// The run made the directory (so it removes it again if it writes nothing).
    let created: Bool
    private let descriptor: Int32

    private init(directory: URL, created: Bool, descriptor: Int32) {
        (self.directory, self.created, self.descriptor) = (directory, created, descriptor)
    }

    /// Claims `directory`, making it if needed. Refused when it holds anything and `force` is
    /// off, or when another live run holds it.
    public static func claim(_ directory: URL, force: Bool) throws(ClaimError) -> OutputClaim {
        let path = directory.path
        func notEmpty() -> ClaimError {
            ClaimError(description: "--out \(path) is not empty: pass --force to write into it (imgbench's files are replaced)", usage: true)
        }
        let existing = try? FileManager.default.contentsOfDirectory(atPath: path)
        if let existing, !existing.isEmpty, !force { throw notEmpty() }
        if let failure = makeDirectories(path) {
            throw ClaimError(description: "cannot create --out \(path): \(String(cString: strerror(failure)))", usage: false)
        }
        let claimPath = directory.appendingPathComponent(fileName).path
        let descriptor = open(claimPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ClaimError(description: "cannot write results to \(path): \(String(cString: strerror(errno)))", usage: false)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: claimPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(descriptor)
            throw ClaimError(description: "--out \(path) is being written by another imgbench run"
                             + (Int32(holder).map { " (pid \($0))" } ?? "") + ": choose another --out", usage: false)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        let claim = OutputClaim(directory: directory, created: existing == nil, descriptor: descriptor)
        // Checked again under the lock: another run may have written and gone since the first look.
        let now = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0 != fileName }
        if !now.isEmpty && !force {
            claim.release(wroteResults: true)
            throw notEmpty()
        }
        return claim
    }

    /// Gives the directory up: the claim goes, and so does the directory if the run made it and
    /// wrote nothing into it.
    public func release(wroteResults: Bool) {
        unlink(directory.appendingPathComponent(Self.fileName).path)
        close(descriptor)
        if !wroteResults, created, (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true {
            rmdir(directory.path)
        }
    }

    /// `mkdir -p`, by hand: Foundation's createDirectory on Linux reports every failure as
    /// "NSCocoaErrorDomain error 512", where mkdir's errno says why ("Not a directory").
    /// Returns that errno, or nil once the directory exists.
    static func makeDirectories(_ path: String) -> Int32? {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") where !component.isEmpty {
            built += "/" + component
            if mkdir(built, 0o755) != 0 && errno != EEXIST { return errno }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return errno }
        return (status.st_mode & S_IFMT) == S_IFDIR ? nil : ENOTDIR
    }
}
