import ArgumentParser
import Foundation
import ImageBench

/// The one way out of a command that cannot go on: `Imgbench.main` prints `imgbench[ COMMAND]:
/// message` as one line on standard error and exits with `status` (2: the work could not be done).
struct CommandFailure: Error {
    let message: String
    let status: Int32

    init(_ message: String, status: Int32 = 2) {
        self.message = message
        self.status = status
    }

    /// An error in words: a failure's own message; Foundation's file errors as the path and the
    /// operating system's reason ("/dev/null/x: Not a directory", not "NSCocoaErrorDomain error
    /// 512", which is all corelibs Foundation's text often says); imgbench's own errors describe
    /// themselves. The path is left out where `context` already names it.
    static func reason(_ error: any Error, context: String? = nil) -> String {
        if let failure = error as? CommandFailure { return failure.message }
        if let validation = error as? ValidationError { return validation.message }
        guard let cocoa = error as? CocoaError else { return "\(error)" }
        let path = cocoa.filePath ?? cocoa.url?.path
        let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError
        let why = underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32($0.code))) : nil }
            ?? path.flatMap(probe) ?? cocoa.localizedDescription
        guard let path, context?.contains(path) != true else { return why }
        return "\(path): \(why)"
    }

    /// Why `path` cannot be made or written, found by looking: the nearest existing ancestor is
    /// not a directory, or not writable. Nil when nothing there explains it.
    static func probe(_ path: String) -> String? {
        var ancestor = URL(fileURLWithPath: path).deletingLastPathComponent().path
        while !FileManager.default.fileExists(atPath: ancestor), ancestor != "/" {
            ancestor = URL(fileURLWithPath: ancestor).deletingLastPathComponent().path
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: ancestor, isDirectory: &isDirectory) else { return nil }
        if !isDirectory.boolValue { return "\(ancestor) is \(String(cString: strerror(ENOTDIR)).lowercased())" }
        return access(ancestor, W_OK) == 0 ? nil : String(cString: strerror(EACCES))
    }

    /// `body`'s result, or its error as a failure whose line is `context: error` (the error alone
    /// when there is no context).
    static func catching<T>(_ context: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(context.map { "\($0): \(reason(error, context: $0))" } ?? reason(error))
        }
    }
}

extension CommandFailure {
    /// Like with like: `differences` between two configurations refuse a comparison (exit 2)
    /// unless `allowed`; allowed, they are printed above it.
    static func requireSameConfiguration(_ differences: [String], of what: String, allowed: Bool) throws {
        guard !differences.isEmpty else { return }
        let list = differences.joined(separator: "; ")
        guard allowed else {
            throw CommandFailure("the two \(what) ran different configurations: \(list) (pass --allow-config-change to compare anyway)")
        }
        print("configurations differ (allowed): \(list)")
    }

    /// A virtual run's figures are a model's: they never share a comparison with measurements,
    /// --allow-config-change or not (exit 2).
    static func requireSameTime(_ a: BenchmarkPlan, _ b: BenchmarkPlan, of what: String) throws {
        guard a.settings.isVirtual != b.settings.isVirtual else { return }
        throw CommandFailure("one of the two \(what) ran in virtual time and the other on the real clock: a model's figures are "
                             + "never compared with measurements, not even with --allow-config-change; run both the same way")
    }
}

extension RecordedPlan {
    /// A results directory's plan, reading directories of imgbench 0.1 through its recorded arguments.
    static func read(_ directory: String) throws -> BenchmarkPlan {
        try CommandFailure.catching { try read(directory: directory, legacy: RunCommand.plan(arguments:)) }
    }
}
