import Foundation
@testable import ImageBench

/// Polls `condition` every `interval` seconds until it holds or `seconds` pass (a generous
/// deadline: only a hung run reaches it). Returns whether it held. Instead of a fixed sleep,
/// which is too short on a busy shared machine and wasted time on an idle one.
@discardableResult
func waitUntil(deadline seconds: Double = 30, every interval: Double = 0.02, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: interval)
    }
    return true
}

/// `waitUntil` for async tests: sleeps the task, not the thread.
func waitUntil(deadline seconds: Double = 30, _ condition: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() >= deadline { return false }
        try await Task.sleep(for: .milliseconds(20))
    }
    return true
}

extension BackgroundRun {
    /// User and system CPU seconds of the process so far (/proc/PID/stat, fields 14 and 15).
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// CPU seconds of the children this process has waited for, ended ones only (getrusage).
func endedChildrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

extension Listener {
    /// Whether a connection waits to be accepted, without accepting it (the peer still waits).
    var hasPendingConnection: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }
}

/// Requests an nginx access log records as answered whose line contains `text`.
func answeredRequests(in accessLog: URL, containing text: String) -> Int {
    ((try? String(contentsOf: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").count { $0.contains(text) }
}
