import Foundation
import Testing
@testable import ImageBench

@Suite("One network thread for many users")
struct CurlLoopTests {
    /// One first attempt's body through `transport`, its token already running as a pipeline's.
    static func fetch(_ transport: CurlMultiTransport, _ url: String) throws(FetchError) -> [UInt8] {
        let token = LoadToken()
        _ = token.begin()
        return try transport.fetch(url, expectedBytes: nil, attempt: 1, token: token).bytes
    }

    /// `body` with one user's transport on a loop of its own, both shut down after it.
    static func withUser(_ limits: FetchLimits = FetchLimits(), _ body: (CurlLoop, CurlMultiTransport) throws -> Void) throws {
        let loop = CurlLoop()
        let transport = CurlMultiTransport(limits: limits, client: 1, loop: loop)
        defer {
            transport.shutdown()
            loop.stop()
        }
        try body(loop, transport)
    }

    @Test("users sharing a loop get their bytes, keep connections of their own, and leave it one by one")
    func sharedLoop() async throws {
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: 6, seed: 4)
            let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile.presets[0], seed: 4)
            defer { server.shutdown() }
            let loop = CurlLoop()
            let first = CurlMultiTransport(limits: FetchLimits(), client: 1, loop: loop)
            let second = CurlMultiTransport(limits: FetchLimits(), client: 2, loop: loop)
            // One after the other, so a shared connection pool would reuse one connection for both.
            for image in corpus.images {
                #expect(try Self.fetch(first, "\(server.baseURL)/\(image.path)") == image.bytes)
                #expect(try Self.fetch(second, "\(server.baseURL)/\(image.path)") == image.bytes)
            }
            #expect(server.connectionCounts.open == 2, "each user's multi handle keeps its own connection")
            #expect(server.counts.requests == 2 * corpus.images.count)
            first.shutdown()
            // The other user goes on after one has left the loop.
            #expect(try Self.fetch(second, "\(server.baseURL)/\(corpus.images[0].path)") == corpus.images[0].bytes)
            second.shutdown()
            loop.stop()
        }
    }

    @Test("many users' transfers at once through one loop, byte for byte; a cancel ends one user's transfer only")
    func manyAtOnce() async throws {
        // Threads, not tasks: other suites may hold the cooperative pool's two threads for seconds.
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: 8, seed: 6)
            let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile(parsing: "latency=5ms"), seed: 6)
            defer { server.shutdown() }
            let stalled = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile(parsing: "latency=20s"), seed: 6)
            defer { stalled.shutdown() }
            let loop = CurlLoop()
            // No timeout of their own within the test: only the cancel may end the stalled transfer.
            let limits = FetchLimits(timeoutMilliseconds: 120_000, stallMilliseconds: 120_000)
            let users = (1...8).map { CurlMultiTransport(limits: limits, client: $0, loop: loop) }
            defer {
                for user in users { user.shutdown() }
                loop.stop()
            }
            let cancelled = LoadToken()
            _ = cancelled.begin()
            let waiting = Locked<Result<FetchResult, FetchError>?>(nil)
            let group = DispatchGroup()
            group.enter()
            Thread.detachNewThread {
                let result = Result { () throws(FetchError) -> FetchResult in
                    try users[0].fetch("\(stalled.baseURL)/\(corpus.images[0].path)", expectedBytes: nil, attempt: 1, token: cancelled)
                }
                waiting.withLockedValue { $0 = result }
                group.leave()
            }
            let matched = Locked(0)
            let fetches = DispatchGroup()
            // The stalled transfer is cancelled while the others are under way: only it ends.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { _ = cancelled.cancel() }
            for user in users {
                for image in corpus.images {
                    fetches.enter()
                    Thread.detachNewThread {
                        if (try? Self.fetch(user, "\(server.baseURL)/\(image.path)")) == image.bytes { matched.withLockedValue { $0 += 1 } }
                        fetches.leave()
                    }
                }
            }
            fetches.wait()
            group.wait()
            #expect(matched.withLockedValue { $0 } == 64)
            guard case .failure(.cancelled(0, _)) = waiting.withLockedValue({ $0 }) else {
                Issue.record("the stalled transfer was not ended by its cancel: \(String(describing: waiting.withLockedValue { $0 }))")
                return
            }
        }
    }

    /// Starts every URL at once (admitted by the loop in one go) and waits for them all.
    static func burst(_ transport: CurlMultiTransport, _ urls: [String]) -> Int {
        let done = DispatchGroup()
        let fetched = Locked(0)
        for url in urls {
            let token = LoadToken()
            _ = token.begin()
            done.enter()
            transport.start(FetchRequest(url: url, token: token)) { result in
                if case .success = result { fetched.withLockedValue { $0 += 1 } }
                done.leave()
            }
        }
        done.wait()
        return fetched.withLockedValue { $0 }
    }

    @Test("a user keeps every idle connection it opened: a lone load between two bursts of five closes none, so the second burst opens none")
    func keepsIdleConnections() async throws {
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: 5, seed: 8)
            // 50 ms to the first byte: each burst's five transfers are all in flight together.
            let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile(parsing: "latency=50ms"), seed: 8)
            defer { server.shutdown() }
            let transport = CurlMultiTransport(limits: FetchLimits(), client: 1)
            defer { transport.shutdown() }
            let urls = corpus.images.map { "\(server.baseURL)/\($0.path)" }
            #expect(Self.burst(transport, urls) == 5)
            #expect(transport.wire?.snapshot.connectionsOpened == 5)
            // Alone in the multi: curl's default cache (four per transfer added) would close one
            // of the five idle connections here, and a phone's client does not.
            #expect(Self.burst(transport, [urls[0]]) == 1)
            #expect(Self.burst(transport, urls) == 5)
            #expect(transport.wire?.snapshot.connectionsOpened == 5, "the second burst reuses the five")
            #expect(server.connectionCounts.open == 5)
        }
    }

    @Test("an idle keep-alive connection stays in the loop's epoll set: twenty loads one after another change it twice, not twice a load")
    func idleConnectionStaysWatched() async throws {
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: 4, seed: 9)
            let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile.presets[0], seed: 9)
            defer { server.shutdown() }
            try Self.withUser { (loop, transport) throws in
                for load in 0..<20 {
                    let image = corpus.images[load % corpus.images.count]
                    #expect(try Self.fetch(transport, "\(server.baseURL)/\(image.path)") == image.bytes)
                }
                #expect(server.connectionCounts.open == 1)
                // Watched for writing while it connects, then for reading; before, also a removal
                // as each load ended and an addition as the next began (two changes a load).
                #expect(loop.epollChanges <= 3, "\(loop.epollChanges) epoll changes for 20 loads on one connection")
                #expect(loop.registrationMismatches() == 0)
            }
        }
    }

    @Test("connections the server resets are replaced, each new socket watched afresh: every load ends as a reset, none waits for a timeout")
    func resetConnectionsReplaced() async throws {
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: 6, seed: 10)
            let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile.presets[0], seed: 10,
                                         faults: try ServerFaults(parsing: "reset=100%"))
            defer { server.shutdown() }
            // A new socket the loop wrongly believed watched would wait out these minutes.
            try Self.withUser(FetchLimits(timeoutMilliseconds: 120_000, stallMilliseconds: 120_000)) { (loop, transport) throws in
                for image in corpus.images {
                    do throws(FetchError) {
                        _ = try Self.fetch(transport, "\(server.baseURL)/\(image.path)")
                        Issue.record("a reset load succeeded")
                    } catch {
                        #expect(LoadFailure.fetch(error).errorClass == .connection, "\(error)")
                    }
                }
                #expect(server.counts.faults == [.reset: 6])
                // Each reset socket closed while watched for reading, as the next one first is.
                #expect(loop.registrationMismatches() == 0)
                #expect(transport.wire?.snapshot.connectionsOpened == 6, "each reset connection replaced by a new one")
            }
        }
    }

    @Test("an idle connection its server closes is let go of once; the next load to that server finds it dead and opens another")
    func closedIdleConnectionLetGo() async throws {
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: 2, seed: 11)
            // Idle keep-alive connections closed by the server after 0.3 s, as nginx's keepalive_timeout does.
            let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile.presets[0], seed: 11,
                                         limits: ConnectionLimits(requestTimeout: 0.3))
            defer { server.shutdown() }
            try Self.withUser { (loop, transport) throws in
                let url = "\(server.baseURL)/\(corpus.images[0].path)"
                #expect(try Self.fetch(transport, url) == corpus.images[0].bytes)
                let idle = loop.epollChanges
                // Its end of the connection readable in the loop's epoll set: taken out of it (a
                // readable socket left there would wake every wait).
                let waited = Date()
                while loop.epollChanges == idle && Date().timeIntervalSince(waited) < 30 { usleep(5_000) }
                #expect(loop.epollChanges == idle + 1)
                usleep(50_000)
                #expect(loop.epollChanges == idle + 1, "let go of once, not watched again")
                // curl closes the dead connection (through the loop) and opens one, often with the
                // same descriptor number: registered afresh, not taken for the old registration.
                #expect(try Self.fetch(transport, url) == corpus.images[0].bytes)
                #expect(transport.wire?.snapshot.connectionsOpened == 2)
                #expect(loop.registrationMismatches() == 0)
            }
        }
    }

    @Test("a connection that never opens leaves no registration behind: the next user's connection, given its descriptor number, is watched afresh")
    func stalledConnectLeavesNothing() async throws {
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: 1, seed: 12)
            let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile.presets[0], seed: 12)
            defer { server.shutdown() }
            // A listener whose one-place queue is taken: a connect to it waits, watched for
            // writing, until curl gives up and closes the socket.
            let full = try Listener(backlog: 0)
            defer { full.close() }
            let filler = try RawConnection(port: full.port)
            defer { _ = Glibc.close(filler.descriptor) }
            try Self.withUser(FetchLimits(timeoutMilliseconds: 300, stallMilliseconds: 300)) { (loop, stalled) throws in
                for client in 2...4 {
                    do throws(FetchError) {
                        _ = try Self.fetch(stalled, "http://127.0.0.1:\(full.port)/\(corpus.images[0].path)")
                        Issue.record("a load to a full listener succeeded")
                    } catch {
                        #expect(LoadFailure.fetch(error).errorClass == .timeout, "\(error)")
                    }
                    // A new user's first connection takes the lowest free number: the closed one's.
                    // Taken for its old registration (watched for writing, as this one first is),
                    // it would never be heard of and fail at its connect timeout.
                    let live = CurlMultiTransport(limits: FetchLimits(timeoutMilliseconds: 20_000, stallMilliseconds: 20_000),
                                                  client: client, loop: loop)
                    defer { live.shutdown() }
                    #expect(try Self.fetch(live, "\(server.baseURL)/\(corpus.images[0].path)") == corpus.images[0].bytes)
                    #expect(loop.registrationMismatches() == 0)
                }
            }
        }
    }

    @Test("a retry's backoff without a thread ends at its load's cancel, not after the wait")
    func eventedBackoffCancels() {
        let token = LoadToken()
        _ = token.begin()
        // A minute's backoff: only the cancel can answer within the half minute waited here.
        var attempts = FetchAttempts(policy: RetryPolicy(retries: 3, backoffMilliseconds: 60_000))
        let retries = attempts.shouldRetry(after: .failure(.connection("refused")))
        #expect(retries)
        let gotNext = Locked<Bool?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let clock = MonotonicClock()
        CallbackContext().pause(until: clock.now() + attempts.backoff, on: clock, unless: token) { carryOn in
            gotNext.withLockedValue { $0 = carryOn }
            answered.signal()
        }
        _ = token.cancel()
        #expect(answered.wait(timeout: .now() + 30) == .success)
        #expect(gotNext.withLockedValue { $0 } == false, "answered with false: no further attempt")
    }
}
