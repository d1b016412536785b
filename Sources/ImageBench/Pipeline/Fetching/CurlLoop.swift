import CShims
import Foundation
import Synchronization

/// One thread driving the transfers of many `CurlMultiTransport`s (CShims' `ib_curl_loop`: epoll
/// and curl's socket interface). A single user's transport has a loop of its own; under
/// `--clients` every user's transport joins one loop, so a hundred users cost one network thread,
/// not a hundred, while each keeps its own multi handle and so its own connections, as phones do.
///
/// `@unchecked Sendable`: `members`, `parsedURLs` and the C loop are touched only by the loop's thread (and by
/// `deinit`, after it has exited); `joining` is locked and `stopping` atomic.
final class CurlLoop: @unchecked Sendable {
    private let loop: OpaquePointer
    private var members: [CurlMultiTransport?] = []
    /// The URLs its members' transfers asked for, parsed once for all of them (loop thread only).
    let parsedURLs = ParsedURLs()
    private let joining = Locked<[CurlMultiTransport]>([])
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    /// True while the loop's thread is awake and will look at its members before it sleeps: a
    /// request made then needs no wake-up (an eventfd write per request otherwise, most of them
    /// from the loop's own completions starting the next load).
    private let awake = Atomic<Bool>(false)
    /// The eventfd was written since the loop last waited: the next wait returns at once anyway.
    private let wakeWritten = Atomic<Bool>(false)

    init() {
        CurlGlobal.initialize()
        guard let loop = ib_curl_loop_new() else { fatalError("cannot create an epoll set for curl: out of descriptors") }
        self.loop = loop
        let thread = Thread { [self] in drive() }
        thread.name = "imgbench.curl-loop"
        thread.start()
    }

    deinit {
        ib_curl_loop_free(loop)
    }

    /// Makes the loop drive `transport` from its next round.
    func join(_ transport: CurlMultiTransport) {
        joining.withLockedValue { $0.append(transport) }
        ib_curl_loop_wakeup(loop)  // always: joins are rare, and a lock is no fence for the check in wakeUp
    }

    /// Has `easy`'s connections open and close their sockets through the loop (a keep-alive
    /// connection then stays in the epoll set between loads); for each easy handle of a member.
    func adopt(_ easy: UnsafeMutableRawPointer) {
        ib_curl_loop_adopt(loop, easy)
    }

    /// How many times the loop changed its epoll set for curl's sockets.
    var epollChanges: UInt64 { ib_curl_loop_epoll_changes(loop) }

    /// Sockets where the loop's registrations and the kernel's epoll set disagree, counted on the
    /// loop's thread (one watched by nobody: its transfer would wait for its timeout); nil if
    /// the loop's thread did not answer within `seconds` or the set could not be read. For tests.
    func registrationMismatches(within seconds: Double = 10) -> Int? {
        ib_curl_loop_check_registrations(loop)
        let asked = MonotonicClock().now()
        while MonotonicClock().now() - asked < UInt64(seconds * 1e9) {
            let answer = ib_curl_loop_checked_registrations(loop)
            if answer >= -1 { return answer >= 0 ? Int(answer) : nil }
            usleep(1_000)
        }
        return nil
    }

    func wakeUp() {
        guard !awake.load(ordering: .sequentiallyConsistent),
              !wakeWritten.exchange(true, ordering: .sequentiallyConsistent) else { return }
        ib_curl_loop_wakeup(loop)
    }

    /// Ends the thread once every member has shut down (their transfers aborted and reported);
    /// members still in it are shut down by the loop.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeUp()
        stopped.wait()
    }

    // MARK: - the loop's thread

    private func drive() {
        var touched: [Int32] = []
        var lastStallCheck: UInt64 = 0
        while true {
            awake.store(true, ordering: .releasing)
            for transport in joining.withLockedValue({ all in defer { all.removeAll() }; return all }) {
                let index = Int(ib_curl_loop_attach(loop, transport.multi))
                precondition(index == members.count, "the loop's slots and members are out of step")
                members.append(transport)
            }
            let stoppingNow = stopping.load(ordering: .acquiring)
            for index in members.indices {
                guard let member = members[index] else { continue }
                if member.serviceRequested() { member.service() }
                // Stopped with members left (an owner that never shut its transport down): their
                // transfers are aborted and reported rather than the loop waiting for ever.
                if stoppingNow && !member.isShutDown { member.stopFromLoop() }
                if member.isShutDown {
                    ib_curl_loop_detach(loop, Int32(index))
                    member.closedByLoop()
                    members[index] = nil
                }
            }
            if stopping.load(ordering: .acquiring) && members.allSatisfy({ $0 == nil })
                && joining.withLockedValue({ $0.isEmpty }) { break }
            let busy = members.contains { $0?.hasTransfers == true }
            if touched.count < members.count { touched = Array(repeating: 0, count: max(16, members.count * 2)) }
            // Asleep from here: a request from now on writes the eventfd. One made since the
            // members were looked at is served at once.
            awake.store(false, ordering: .sequentiallyConsistent)
            let missed = members.contains { $0?.hasServiceRequest == true } || joining.withLockedValue { !$0.isEmpty }
                || stopping.load(ordering: .sequentiallyConsistent)
            // At most 100 ms while transfers are under way (their stall timeouts), else 1 s.
            let wait: Int32 = missed ? 0 : busy ? Int32(CurlFetcher.tickMilliseconds) : 1_000
            let count = ib_curl_loop_run_once(loop, wait, &touched, Int32(touched.count))
            // Awake again: the completions below start loads without writing the eventfd (the next
            // round serves them). Only a write after this is still unread when the loop next waits.
            awake.store(true, ordering: .sequentiallyConsistent)
            wakeWritten.store(false, ordering: .sequentiallyConsistent)
            for position in 0..<max(0, Int(count)) { members[Int(touched[position])]?.collectFinished() }
            let now = MonotonicClock().now()
            if now - min(now, lastStallCheck) >= UInt64(CurlFetcher.tickMilliseconds) * 1_000_000 {
                lastStallCheck = now
                for member in members { member?.abortStalled(now: now) }
            }
        }
        stopped.signal()
    }
}
