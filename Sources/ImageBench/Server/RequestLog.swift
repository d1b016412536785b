import Foundation

/// `imgbench serve`'s log, kept off the serving path: the event loops append a line to a buffer
/// and a background thread writes it out every 100 ms (or at 64 kB), so a terminal or a pipe never
/// slows the answers. Writing each line as it came cut throughput by 44% under wrk.
public final class RequestLog: Sendable {
    public enum Level: String, Sendable, CaseIterable {
        /// Nothing.
        case none
        /// Status 400 and above, and injected faults.
        case errors
        /// Every request.
        case requests
    }

    let level: Level
    private let output: FileHandle
    private let buffer = Locked<[UInt8]>([])
    private let stopped = Locked(false)
    /// The writer's own buffer, traded with `buffer` at each flush (one writer at a time): the
    /// lines leave without a copy of the buffer nor a new one for the event loops.
    private let writing = Locked<[UInt8]>([])
    private static let flushBytes = 64 * 1024

    public init(level: Level, output: FileHandle = .standardOutput) {
        self.level = level
        self.output = output
        guard level != .none else { return }
        let thread = Thread { [self] in
            while !stopped.withLockedValue({ $0 }) {
                Thread.sleep(forTimeInterval: 0.1)
                flush()
            }
        }
        thread.name = "imgbench-serve-log"
        thread.start()
    }

    /// The logging closure for `ImageServer`, nil when nothing is logged.
    public var recorder: (@Sendable (ServedRequest) -> Void)? {
        level == .none ? nil : { @Sendable [self] request in self.record(request) }
    }

    func record(_ request: ServedRequest) {
        guard level == .requests || (level == .errors && (request.status >= 400 || request.fault != nil)) else { return }
        let full = buffer.withLockedValue { buffer in
            // The path is the client's: escaped, so `%0a` cannot forge a line nor `%1b` drive a terminal.
            buffer.append(contentsOf: (UntrustedText.line(request.description, limit: 1_000) + "\n").utf8)
            return buffer.count >= Self.flushBytes
        }
        if full { flush() }
    }

    /// Writes what is buffered, whole lines in order (one writer at a time).
    func flush() {
        writing.withLockedValue { lines in
            lines.removeAll(keepingCapacity: true)
            buffer.withLockedValue { swap(&$0, &lines) }
            if !lines.isEmpty { output.write(Data(lines)) }
        }
    }

    /// Flushes and stops the writer thread.
    public func close() {
        stopped.withLockedValue { $0 = true }
        flush()
    }
}
