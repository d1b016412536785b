import Foundation

/// CPU time and peak memory of this process, read from getrusage and /proc.
struct ResourceUsage: Sendable, Equatable {
    var userSeconds: Double
    var systemSeconds: Double

    static func now() -> ResourceUsage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return ResourceUsage(userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
                             systemSeconds: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
    }

    static func - (lhs: ResourceUsage, rhs: ResourceUsage) -> ResourceUsage {
        ResourceUsage(userSeconds: lhs.userSeconds - rhs.userSeconds, systemSeconds: lhs.systemSeconds - rhs.systemSeconds)
    }

    /// Resets the kernel's peak-RSS mark (VmHWM) so the next reading is this run's own peak.
    /// Writing 5 to clear_refs does exactly that (Linux 4.0+); where it is refused, the peak is
    /// the process's so far, which can only overstate.
    static func resetPeakResidentMemory() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// Peak resident memory in MB (10^6 bytes, as everywhere in imgbench) since the last reset
    /// (VmHWM, which the kernel gives in KiB).
    static func peakResidentMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_maxrss) * 1_024 / 1e6
        }
        return kilobytes * 1_024 / 1e6
    }
}
