import Foundation
import Testing
@testable import ImageBench

/// The modelled network against the embedded server's shaping, to the nanosecond: latency per
/// URL, a new connection's round trips, the shared link's chunks.
@Suite("The modelled network (--time virtual)")
struct ModelledTransportTests {
    static let ms: UInt64 = 1_000_000
    static let url = "\(virtualBaseURL)/img/1.jpg"

    /// latency 100 ms, no jitter, 100 kB/s: a chunk is 4,096 bytes (5 ms of link is less), 40.96 ms.
    static func transport(http: HTTPVersion = .http1_1, tls: Bool = false, clock: VirtualClock) throws -> ModelledTransport {
        ModelledTransport(profile: try NetworkProfile(parsing: "latency=100ms,jitter=0ms,bandwidth=100kB/s"), seed: 1,
                          sizes: [url: 10_000], http: http, tls: tls, drawsPerPicture: false, clock: clock)
    }

    /// Starts a fetch of `url`; its result lands in the box when the clock gets there.
    static func fetch(_ transport: ModelledTransport, token: LoadToken = LoadToken(), url: String = url)
        -> Locked<Result<FetchResult, FetchError>?> {
        let box = Locked<Result<FetchResult, FetchError>?>(nil)
        transport.start(FetchRequest(url: url, token: token)) { result in box.withLockedValue { $0 = result } }
        return box
    }

    /// The fetch's error, if it has ended in one.
    static func failure(_ box: Locked<Result<FetchResult, FetchError>?>) -> FetchError? {
        guard case .failure(let error)? = box.withLockedValue({ $0 }) else { return nil }
        return error
    }

    @Test("a host delay (--host-delay-ms) comes on top of every answer's latency and handshake, to the nanosecond, and moves nothing else")
    func hostDelay() throws {
        let clock = VirtualClock(start: 0)
        let transport = ModelledTransport(profile: try NetworkProfile(parsing: "latency=100ms,jitter=0ms,bandwidth=100kB/s"), seed: 1,
                                          sizes: [Self.url: 10_000], http: .http1_1, tls: false, drawsPerPicture: false,
                                          hostDelay: 650_000, clock: clock)
        let first = Self.fetch(transport)
        clock.sleep(until: 200 * Self.ms + 649_999)
        #expect(first.withLockedValue { $0 } == nil, "not before the handshake, the latency and the host's 0.65 ms")
        clock.sleep(until: 1_000 * Self.ms)
        let result = try #require(try first.withLockedValue { $0 }?.get())
        #expect(result.timeToFirstByte == 200 * Self.ms + 650_000 && result.transfer == 100 * Self.ms)
        #expect(result.connection?.connect == 100 * Self.ms, "the handshake's round trip is the network's alone")
        let second = Self.fetch(transport)
        clock.sleep(until: 2_000 * Self.ms)
        #expect(try second.withLockedValue { $0 }?.get().timeToFirstByte == 100 * Self.ms + 650_000)
    }

    @Test("HTTP/1.1: a new connection's first byte waits its handshake and the latency; the body takes the link's chunks; the next load reuses the connection")
    func http1Timings() throws {
        let clock = VirtualClock(start: 0)
        let transport = try Self.transport(clock: clock)
        let first = Self.fetch(transport)
        clock.sleep(until: 299 * Self.ms)
        #expect(first.withLockedValue { $0 } == nil)
        clock.sleep(until: 300 * Self.ms)
        let result = try #require(try first.withLockedValue { $0 }?.get())
        // 100 ms TCP handshake + 100 ms latency; 4,096 + 4,096 + 1,808 bytes at 100 kB/s.
        #expect(result.timeToFirstByte == 200 * Self.ms && result.transfer == 100 * Self.ms && result.size == 10_000)
        #expect(result.connection == ConnectionFacts(protocolVersion: "1.1", opened: true, connect: 100 * Self.ms))
        let second = Self.fetch(transport)
        clock.sleep(until: 1_000 * Self.ms)
        let again = try #require(try second.withLockedValue { $0 }?.get())
        #expect(again.timeToFirstByte == 100 * Self.ms && again.connection?.opened == false)
        let wire = try #require(transport.wire?.snapshot)
        #expect(wire.connectionsOpened == 1 && wire.connectionsReused == 1 && wire.bytesReceived == 20_000)
        #expect(wire.connect.count == 1 && wire.tlsHandshake.count == 0)
    }

    @Test("a cancel in flight ends the load with what arrived when the loop next waits, not inside the frame's work, and the clock does not move for it; over HTTP/1.1 it costs the connection (TLS: two round trips again), over HTTP/2 it does not")
    func cancels() throws {
        for http in [HTTPVersion.http1_1, .http2] {
            let clock = VirtualClock(start: 0)
            let transport = try Self.transport(http: http, tls: true, clock: clock)
            let token = LoadToken()
            _ = token.begin()  // running, as the pipeline marks a load before it fetches
            let cut = Self.fetch(transport, token: token)
            // TLS: 200 ms of handshake, 100 ms latency; one chunk in by 341 ms.
            clock.sleep(until: 341 * Self.ms)
            _ = token.cancel()
            #expect(cut.withLockedValue { $0 } == nil, "the rest of the frame's work comes first (\(http))")
            clock.settle()
            #expect(Self.failure(cut) == .cancelled(received: 4_096, announced: 10_000), "\(http)")
            #expect(clock.now() == 341 * Self.ms && clock.pending == 0, "\(http)")
            let next = Self.fetch(transport)
            clock.sleep(until: 2_000 * Self.ms)
            let result = try #require(try next.withLockedValue { $0 }?.get())
            #expect(result.timeToFirstByte == (http == .http2 ? 100 : 300) * Self.ms, "\(http)")
            #expect(transport.wire?.snapshot.connectionsOpened == (http == .http2 ? 1 : 2), "\(http)")
        }
    }

    @Test("HTTP/2: loads started during the handshake all wait for it, then share the link; a URL the corpus lacks is a 404 at once")
    func http2Handshake() throws {
        let clock = VirtualClock(start: 0)
        let transport = try Self.transport(http: .http2, clock: clock)
        let a = Self.fetch(transport)
        clock.sleep(until: 50 * Self.ms)
        let b = Self.fetch(transport)
        let missing = Self.fetch(transport, url: "\(virtualBaseURL)/img/none.jpg")
        #expect(Self.failure(missing) == .httpStatus(404))
        clock.sleep(until: 5_000 * Self.ms)
        let (first, second) = (try #require(try a.withLockedValue { $0 }?.get()), try #require(try b.withLockedValue { $0 }?.get()))
        // a: ready at 100 ms, +100 ms latency. b: started at 50 ms, answered at 150 ms + its wait
        // for the handshake (50 ms more): 200 ms too, 150 after its start. Then 20,000 bytes
        // interleave on the link, chunk by chunk: a's last chunk ends at 200 + 4×40.96 + 18.08.
        #expect(first.timeToFirstByte == 200 * Self.ms && second.timeToFirstByte == 150 * Self.ms)
        #expect(first.timeToFirstByte + first.transfer == 200 * Self.ms + 4 * 40_960_000 + 18_080_000)
        #expect(transport.wire?.snapshot.connectionsOpened == 1)
    }
}
