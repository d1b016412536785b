/// Issue 32, point 5: what a load tester gets by typing `--clients 100`. The classic defaults
/// (operation-queue, gcd, threads on blocking easy handles) are the app engineer's comparison: each
/// of their users keeps a main-loop thread and five workers that each wake per request, which cost
/// 3.7–5.4× wrk's CPU per HTTP request against nginx (README, "Many users and many machines"),
/// and the harness's cost is then what it measures. `events` on the multi transport steps every
/// user on one thread and drives every connection from one epoll thread: 2.4–3.6× wrk as measured
/// over several sessions (libcurl alone, driven the same way, is 1.9×; README, scripts/user-cost).
/// So a load test that names no strategy gets that path, and says so; naming strategies (or a
/// transport other than multi) keeps exactly what was named. A single user that decodes (the app
/// engineer's run) keeps the classic defaults, unchanged.
enum LoadTestDefaults {
    /// The strategies and transport of a load test that names no strategy.
    static let strategies: [StrategyKind] = [.events]
    static let transport = TransportKind.multi

    /// What the run says before it starts when it chose them.
    static let note = "a load test with no --strategies runs the cheap path: --strategies events --transport multi "
        + "(one thread steps every user, one drives every connection); name strategies to compare others"

    /// Whether `options` ask for a load test (more than one user, or `--no-decode`) and leave the
    /// strategies to the default, with no transport or the multi one. `clients` is the resolved
    /// number of users (a load model's included).
    static func apply(_ options: RunOptions, clients: Int, decodes: Bool) -> Bool {
        guard options["strategies"] == nil else { return false }
        guard options["transport"].map({ $0.trimmingCharacters(in: .whitespaces) == transport.rawValue }) ?? true else { return false }
        return clients > 1 || !decodes
    }
}
