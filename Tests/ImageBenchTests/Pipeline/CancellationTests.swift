import Foundation
import Testing
@testable import ImageBench

@Suite("Cancellation of real transfers")
struct CancellationTests {
    @Test("cancelling an in-flight fetch stops the transfer before the body is complete")
    func inFlightCancelStopsTransfer() async throws {
        try await onOwnThread { try Self.inFlightCancelBlocking() }
    }

    static func inFlightCancelBlocking() throws {
        let corpus = ImageCorpus.generate(count: 8, seed: 5)
        let image = corpus.images.max { $0.bytes.count < $1.bytes.count }!
        // 40 kB/s: the largest image takes well over a second to send.
        let profile = try NetworkProfile(parsing: "latency=0ms,bandwidth=40kB/s")
        let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: profile, seed: 5)
        defer { server.shutdown() }
        #expect(image.bytes.count > 60_000)
        let token = LoadToken()
        #expect(token.begin())
        let outcome = Locked<Result<FetchResult, FetchError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { () throws(FetchError) -> FetchResult in
                try CurlFetcher().fetch("\(server.baseURL)/\(image.path)", expectedBytes: image.bytes.count, token: token)
            }
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        // Cancelled once the body is on its way (some bytes sent), not after a guessed time.
        try #require(waitUntil { server.bytesSent > 0 }, "the transfer never started")
        #expect(token.cancel() == .inFlight)
        done.wait()
        let result = try #require(outcome.withLockedValue { $0 })
        guard case .failure(.cancelled(let received, _)) = result else {
            Issue.record("expected a cancelled fetch, got \(result)")
            return
        }
        #expect(received < image.bytes.count)
        // The server stops sending once the client has gone: it notices and closes the
        // connection, and what it sent by then is less than the image.
        #expect(waitUntil { server.connectionCounts.open == 0 }, "\(server.connectionCounts)")
        #expect(server.bytesSent < image.bytes.count)
    }

    @Test("the multi transport drops a transfer still waiting for its first byte as soon as it is cancelled")
    func multiCancelWhileStalled() async throws {
        // On a thread of its own with blocking waits: in CI's debug pass the cooperative pool's two
        // threads were held by other suites for minutes, so an awaiting test resumed after the
        // server's stall had ended and the fetch had succeeded.
        try await onOwnThread { try Self.multiCancelWhileStalledBlocking() }
    }

    static func multiCancelWhileStalledBlocking() throws {
        let corpus = ImageCorpus.generate(count: 2, seed: 9)
        // The server holds every response for 60 s: only a working cancel ends this fetch early.
        let profile = try NetworkProfile(parsing: "latency=60s")
        let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: profile, seed: 9)
        defer { server.shutdown() }
        // No stall timeout within the test either: on a loaded host the cancel may come seconds late.
        let transport = CurlMultiTransport(limits: FetchLimits(timeoutMilliseconds: 120_000, stallMilliseconds: 120_000))
        defer { transport.shutdown() }
        let token = LoadToken()
        #expect(token.begin())
        let answer = Locked<Result<FetchResult, FetchError>?>(nil)
        transport.start(FetchRequest(url: "\(server.baseURL)/\(corpus.images[0].path)", token: token)) { result in
            answer.withLockedValue { $0 = result }
        }
        // Cancelled once the server holds the request (its connection is open), not after a guessed time.
        try #require(waitUntil(deadline: 50) { server.connectionCounts.open >= 1 }, "\(server.connectionCounts)")
        #expect(token.cancel() == .inFlight)
        #expect(waitUntil(deadline: 50) { answer.withLockedValue { $0 } != nil })
        let result = answer.withLockedValue { $0 }
        guard case .failure(let error)? = result, case .cancelled(let received, _) = error else {
            Issue.record("expected a cancelled fetch, got \(String(describing: result))")
            return
        }
        #expect(received == 0)
        #expect(server.bytesSent == 0)
    }

    @Test("the multi transport fetches many images at once, byte for byte")
    func multiFetches() async throws {
        let corpus = ImageCorpus.generate(count: 10, seed: 3)
        let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: NetworkProfile.presets[0], seed: 3)
        defer { server.shutdown() }
        let transport = CurlMultiTransport(limits: FetchLimits())
        defer { transport.shutdown() }
        try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for image in corpus.images {
                group.addTask {
                    let token = LoadToken()
                    _ = token.begin()
                    let result = try await transport.fetchAsync("\(server.baseURL)/\(image.path)", expectedBytes: nil, token: token)
                    return (image.id, result.bytes)
                }
            }
            for try await (id, bytes) in group { #expect(bytes == corpus[id].bytes) }
        }
    }

    @Test("a token cancelled before it begins never starts, and reports what a cancel achieved")
    func tokenStates() {
        let queued = LoadToken()
        #expect(queued.cancel() == .whileQueued)
        #expect(!queued.begin())
        #expect(queued.isCancelled)

        let running = LoadToken()
        #expect(running.begin())
        #expect(running.cancel() == .inFlight)
        #expect(!running.finish())

        let finished = LoadToken()
        #expect(finished.begin())
        #expect(finished.finish())
        #expect(finished.cancel() == .tooLate)
        #expect(!finished.isCancelled)
    }
}
