import CCurl
import CShims
import Foundation
import Synchronization

/// The non-blocking transport: a curl multi handle whose transfers a `CurlLoop` thread drives
/// (its own, or one shared by every simulated user). Workers hand it requests and wait or suspend
/// for the result; no worker thread sits in a socket read. A cancelled load's token wakes the
/// loop, which removes the transfer at once, even from a stalled connection.
///
/// `@unchecked Sendable`: `multi`, `active`, `spare` and `isShutDown` are touched only by the
/// loop's thread (the multi is cleaned up there too); everything else is a lock, an atomic or
/// immutable.
final class CurlMultiTransport: Transport, @unchecked Sendable {
    let kind = TransportKind.multi
    let blocksCaller = false
    typealias Completion = FetchCompletion

    private struct Request {
        let fetch: FetchRequest
        let completion: Completion
    }

    let multi: UnsafeMutableRawPointer
    private let limits: FetchLimits
    private let loop: CurlLoop
    private let ownsLoop: Bool
    private let incoming = Locked<(requests: [Request], closed: Bool)>(([], false))
    private let bell: ServiceBell
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    private var active: [UnsafeMutableRawPointer: (easy: CurlEasy, completion: Completion)] = [:]
    private var spare: [CurlEasy] = []
    /// The requests `admitIncoming` is taking in (the loop's thread only; empty between calls).
    private var admitting: [Request] = []
    /// `start`'s cancel handler, made once: a closure per request was an allocation per request.
    private let ringOnCancel: @Sendable () -> Void
    private(set) var isShutDown = false

    private let client: Int
    private let keepsBodies: Bool
    let wire: WireLedger? = WireLedger()

    /// `loop`: the thread that drives it, shared with other users' transports; nil for one of its own.
    init(limits: FetchLimits, client: Int = 0, loop: CurlLoop? = nil, keepsBodies: Bool = true) {
        self.client = client
        self.keepsBodies = keepsBodies
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        // HTTP/2 transfers to one host share its connection as streams (curl's default since
        // 7.62, said here because `--http 2` depends on it); HTTP/1.1 ones never share.
        ib_curl_multi_set_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // Every idle connection stays open until the server closes it, as a phone's client keeps
        // them (and as the model does). curl's default keeps four per transfer in the multi at
        // the moment one ends: a lone load between bursts closed the fifth of five, and a
        // `--clients 100` run at limit 5 opened 1,844 connections where 500 serve (one user:
        // 8 to 18 for 5).
        ib_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, FlagRanges.concurrency.upperBound)
        self.limits = limits
        self.loop = loop ?? CurlLoop()
        let bell = ServiceBell(loop: self.loop)
        self.bell = bell
        ringOnCancel = { bell.ring() }
        ownsLoop = loop == nil
        self.loop.join(self)
    }

    /// Queues a transfer; `completion` runs on the loop's thread (or at once on the caller's, if
    /// the transport is shut down).
    func start(_ fetch: FetchRequest, completion: @escaping Completion) {
        // Checked and queued under the lock the loop's last drain takes: a request either makes
        // that drain (and is refused there) or sees the transport closed here; none is stranded.
        let accepted = incoming.withLockedValue { queue in
            guard !queue.closed else { return false }
            queue.requests.append(Request(fetch: fetch, completion: completion))
            return true
        }
        guard accepted else {
            completion(.failure(.connection("transport shut down")))
            return
        }
        fetch.token.onCancel(ringOnCancel)
        bell.ring()
    }

    /// Aborts what is in flight and leaves the loop (stopping it if it is this transport's own).
    func shutdown() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        bell.ring()
        stopped.wait()
        if ownsLoop { loop.stop() }
    }

    // MARK: - on the loop's thread

    /// True once after `start`, a cancel or `shutdown` asked for the loop's attention.
    func serviceRequested() -> Bool { bell.answer() }

    /// The same, without taking the request.
    var hasServiceRequest: Bool { bell.isRinging }

    var hasTransfers: Bool { !active.isEmpty }

    /// Admits new transfers and removes cancelled ones; on shutdown, aborts everything.
    func service() {
        admitIncoming()
        let stop = stopping.load(ordering: .acquiring)
        for (handle, entry) in active where stop || entry.easy.transfer?.token.isCancelled == true {
            complete(handle, entry, code: CURLE_ABORTED_BY_CALLBACK)
        }
        if stop {
            admitIncoming(closing: true)  // anything that raced in is refused, and nothing more comes
            isShutDown = true
        }
    }

    /// The loop is stopping with this transport still in it: shut it down from the loop's side
    /// (its owner's later `shutdown` then returns at once).
    func stopFromLoop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        service()
    }

    func abortStalled(now: UInt64) {
        for (handle, entry) in active where entry.easy.isStalled(now: now) {
            complete(handle, entry, code: CURLE_ABORTED_BY_CALLBACK)
        }
    }

    /// Reports the transfers curl has finished.
    func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                  let entry = active[handle] else { continue }
            complete(handle, entry, code: message.pointee.data.result)
        }
    }

    /// The loop has let go of the multi: clean it up here, on its thread, and release `shutdown`.
    func closedByLoop() {
        spare.removeAll()
        curl_multi_cleanup(multi)
        stopped.signal()
    }

    private func admitIncoming(closing: Bool = false) {
        // The queue's buffer and this one trade places under the lock: neither side allocates
        // (emptying the queue's and handing its copy out regrew it for the next request). It is
        // empty outside this function: emptied on the way out, its completions gone with their transfers.
        incoming.withLockedValue { queue in
            if closing { queue.closed = true }
            swap(&queue.requests, &admitting)
        }
        defer { admitting.removeAll(keepingCapacity: true) }
        for request in admitting {
            if stopping.load(ordering: .acquiring) {
                request.completion(.failure(.connection("transport shut down")))
                continue
            }
            if request.fetch.token.isCancelled {
                request.completion(.failure(.cancelled(received: 0)))
                continue
            }
            let easy = spare.popLast() ?? adopted(CurlEasy(limits: limits, client: client, keepsBodies: keepsBodies, cancelsItself: false, wire: wire))
            easy.prepare(request.fetch, parsedURL: loop.parsedURLs.handle(for: request.fetch.urlKey ?? CacheKey(request.fetch.url)))
            curl_multi_add_handle(multi, easy.handle)
            active[easy.handle] = (easy, request.completion)
        }
    }

    private func adopted(_ easy: CurlEasy) -> CurlEasy {
        loop.adopt(easy.handle)
        return easy
    }

    private func complete(_ handle: UnsafeMutableRawPointer, _ entry: (easy: CurlEasy, completion: Completion), code: CURLcode) {
        curl_multi_remove_handle(multi, handle)
        active[handle] = nil
        let result = entry.easy.finish(code)
        spare.append(entry.easy)
        entry.completion(result)
    }
}

/// A transport's call for its loop's attention (a request queued, a load cancelled, a shutdown).
/// Apart from the transport so that each transfer's cancel handler can hold it strongly: a weak
/// reference to the transport gave the transport a side table, and every retain and release of it
/// then took Swift's slow path (the loop retains each member several times a round).
final class ServiceBell: Sendable {
    private let rung = Atomic<Bool>(false)
    private let loop: CurlLoop

    init(loop: CurlLoop) {
        self.loop = loop
    }

    func ring() {
        rung.store(true, ordering: .sequentiallyConsistent)
        loop.wakeUp()
    }

    /// True once after a ring (the loop's thread takes it).
    func answer() -> Bool { rung.exchange(false, ordering: .acquiringAndReleasing) }

    /// Rung and not yet answered.
    var isRinging: Bool { rung.load(ordering: .sequentiallyConsistent) }
}
