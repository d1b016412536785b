import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// scripts/test runs the test process at a lower priority (`nice -n 5`) and names the priority
/// its child processes get back (`IMGBENCH_CHILD_NICENESS=0`): the suites that scroll in real
/// time in child processes (`ChildProcessRuns`, one after another) are the test pass's critical
/// path, 447 s alone against 290 s for every in-process suite, and at equal priority the in-process
/// suites' load on both cores stretched that chain to 673 s. Lowering a child's niceness needs
/// the privilege CI runs with (root); without it, or outside scripts/test, nothing changes.
enum ChildPriority {
    static let niceness: Int32? = ProcessInfo.processInfo.environment["IMGBENCH_CHILD_NICENESS"].flatMap { Int32($0) }

    /// Gives a child just started the priority scripts/test names, if any. Threads the child
    /// starts from now on inherit it.
    static func raise(_ process: Process) {
        guard let niceness, process.processIdentifier > 0 else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(process.processIdentifier), niceness)
    }
}
