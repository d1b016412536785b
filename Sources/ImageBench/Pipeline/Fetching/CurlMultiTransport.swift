import CCurl
import CShims
import Foundation
import Synchronization

/// The non-blocking transport: one driver thread runs every transfer through a curl multi handle
/// (`curl_multi_perform` / `curl_multi_poll`). Workers hand it requests and wait or suspend for
/// the result; no worker thread sits in a socket read. A cancelled load's token wakes the driver
/// (`curl_multi_wakeup`), which removes the transfer at once, even from a stalled connection.
///
/// `@unchecked Sendable`: `multi`, `active` and `spare` are touched only by the driver thread
/// (and by `deinit` after it has exited); everything else is a lock, an atomic or immutable.
public final class CurlMultiTransport: Transport, @unchecked Sendable {
    public let kind = TransportKind.multi
    public typealias Completion = @Sendable (Result<FetchResult, FetchError>) -> Void

    private struct Request {
        let url: String
        let expectedBytes: Int?
        let attempt: Int
        let token: LoadToken
        let completion: Completion
    }

    private let multi: UnsafeMutableRawPointer
    private let limits: FetchLimits
    private let incoming = Locked<[Request]>([])
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    private var active: [UnsafeMutableRawPointer: (easy: CurlEasy, completion: Completion)] = [:]
    private var spare: [CurlEasy] = []

    private let client: Int

    public init(limits: FetchLimits, client: Int = 0) {
        self.client = client
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        self.limits = limits
        let thread = Thread { [self] in drive() }
        thread.name = "imgbench.curl-multi"
        thread.start()
    }

    deinit {
        curl_multi_cleanup(multi)
    }

    /// Queues a transfer; `completion` runs on the driver thread.
    public func start(_ url: String, expectedBytes: Int?, attempt: Int = 1, token: LoadToken, completion: @escaping Completion) {
        guard !stopping.load(ordering: .acquiring) else {
            completion(.failure(.connection("transport shut down")))
            return
        }
        incoming.withLockedValue { $0.append(Request(url: url, expectedBytes: expectedBytes, attempt: attempt, token: token,
                                                                   completion: completion)) }
        token.onCancel { [weak self] in self?.wakeUp() }
        wakeUp()
    }

    public func fetch(_ url: String, expectedBytes: Int?, attempt: Int, token: LoadToken) throws(FetchError) -> FetchResult {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<FetchResult, FetchError>?>(nil)
        start(url, expectedBytes: expectedBytes, attempt: attempt, token: token) { result in
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLockedValue { $0! }.get()
    }

    public func fetchAsync(_ url: String, expectedBytes: Int?, attempt: Int, token: LoadToken) async throws(FetchError) -> FetchResult {
        // The result travels through a lock as well as the continuation: the continuation alone is
        // a correct hand-off, but ThreadSanitizer cannot see inside the uninstrumented concurrency
        // runtime and would report the body's bytes as a race.
        let outcome = Locked<Result<FetchResult, FetchError>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            start(url, expectedBytes: expectedBytes, attempt: attempt, token: token) { result in
                outcome.withLockedValue { $0 = result }
                continuation.resume()
            }
        }
        return try outcome.withLockedValue { $0! }.get()
    }

    /// Aborts what is in flight and stops the driver thread.
    public func shutdown() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeUp()
        stopped.wait()
    }

    private func wakeUp() {
        curl_multi_wakeup(multi)
    }

    // MARK: - the driver thread

    private func drive() {
        var running: Int32 = 0
        while true {
            admitIncoming()
            let stop = stopping.load(ordering: .acquiring)
            let now = MonotonicClock.now()
            for (handle, entry) in active where stop || entry.easy.transfer?.token.isCancelled == true || entry.easy.isStalled(now: now) {
                complete(handle, entry, code: CURLE_ABORTED_BY_CALLBACK)
            }
            if stop {
                admitIncoming()  // anything that raced in is refused below
                for (handle, entry) in active { complete(handle, entry, code: CURLE_ABORTED_BY_CALLBACK) }
                break
            }
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                      let entry = active[handle] else { continue }
                complete(handle, entry, code: message.pointee.data.result)
            }
            // Sleeps until a socket is ready, curl's next timeout, or wakeUp(); at most 100 ms while
            // transfers are under way (for their stall timeouts), else 1 s.
            curl_multi_poll(multi, nil, 0, active.isEmpty ? 1_000 : CurlFetcher.tickMilliseconds, nil)
        }
        stopped.signal()
    }

    private func admitIncoming() {
        let requests = incoming.withLockedValue { pending in
            defer { pending.removeAll() }
            return pending
        }
        for request in requests {
            if stopping.load(ordering: .acquiring) {
                request.completion(.failure(.connection("transport shut down")))
                continue
            }
            if request.token.isCancelled {
                request.completion(.failure(.cancelled(received: 0)))
                continue
            }
            let easy = spare.popLast() ?? CurlEasy(limits: limits, client: client)
            easy.prepare(request.url, expectedBytes: request.expectedBytes, attempt: request.attempt, token: request.token)
            curl_multi_add_handle(multi, easy.handle)
            active[easy.handle] = (easy, request.completion)
        }
    }

    private func complete(_ handle: UnsafeMutableRawPointer, _ entry: (easy: CurlEasy, completion: Completion), code: CURLcode) {
        curl_multi_remove_handle(multi, handle)
        active[handle] = nil
        let result = entry.easy.finish(code)
        spare.append(entry.easy)
        entry.completion(result)
    }
}
