import Foundation

/// The network of a virtual-time run (`--time virtual`): what the embedded server's shaping would
/// do to each request, worked out on a `VirtualClock` instead of served over sockets. The same
/// model, step for step: the profile's time to first byte drawn per URL path by the seed
/// (`NetworkProfile.latency(for:seed:)`), a new connection's handshake round trips before its
/// first answer (`ConnectionHandshake`: 1 for TCP, 2 over TLS), and the body paced through the
/// user's one `SharedLink`, a chunk reserved when the last one has gone, first come first served.
///
/// Connections as curl keeps them: over HTTP/1.1 a load takes an idle kept-alive connection or
/// opens one, and a load cancelled in flight closes its own (curl cannot stop a response and keep
/// the connection); over HTTP/2 a user has one connection, opened by its first load, and a
/// cancel resets only its stream. The host's own time per request only as `--host-delay-ms`
/// says. Not modelled: TCP's slow start, faults, headers' bytes (wire figures count bodies only).
///
/// Every call comes from the run loop's thread (starts, cancels, and the clock's events while it
/// sleeps), hence `@unchecked Sendable` over plain state.
final class ModelledTransport: Transport, @unchecked Sendable {
    let kind = TransportKind.multi
    let blocksCaller = false
    let wire: WireLedger? = WireLedger()

    private let profile: NetworkProfile
    private let seed: UInt64
    private let sizes: [String: Int]
    private let http2: Bool
    /// A handshake's round trip (the profile's latency without jitter), and whether TLS adds one.
    private let roundTrip: UInt64
    private let tls: Bool
    private let drawsPerPicture: Bool
    /// The host's own time per request (`--host-delay-ms`): what a real run adds to the network's,
    /// from the frame's work reaching the row through curl and the loopback and back (0.6 ms on
    /// this 2-core VM by `imgbench calibrate`). Small against a latency, it decides whether an
    /// answer due near a frame's edge lands before the row leaves or after.
    private let hostDelay: UInt64
    private let clock: VirtualClock
    private let link: SharedLink?

    /// HTTP/1.1: kept-alive connections no load is using.
    private var idleConnections = 0
    /// HTTP/2: when the user's connection can answer (nil: not opened yet), and whether an answer
    /// has gone out on it (then nothing waits for the handshake again, as in the server).
    private var http2ReadyAt: UInt64?
    private var http2Answered = false

    /// `sizes`: each URL's body size in bytes (a URL not in it answers 404, as the server does).
    init(profile: NetworkProfile, seed: UInt64, sizes: [String: Int], http: HTTPVersion, tls: Bool,
         drawsPerPicture: Bool, hostDelay: UInt64 = 0, clock: VirtualClock) {
        self.profile = profile
        self.seed = seed
        self.sizes = sizes
        http2 = http == .http2
        roundTrip = UInt64(ConnectionHandshake.milliseconds(profile: profile, tls: false) * 1e6)
        self.tls = tls
        self.drawsPerPicture = drawsPerPicture
        self.hostDelay = hostDelay
        self.clock = clock
        link = profile.bandwidthBytesPerSecond.map { SharedLink(bytesPerSecond: $0, clock: clock) }
    }

    func start(_ request: FetchRequest, completion: @escaping FetchCompletion) {
        let transfer = ModelledTransfer(startedAt: clock.now(), completion: completion)
        guard !request.token.isCancelled else { return transfer.end(.failure(.cancelled(received: 0))) }
        let path = URLComponents(string: request.url)?.path ?? request.url
        guard let size = sizes[request.url] else {
            // The server answers a missing file at once, unshaped.
            return transfer.end(.failure(.httpStatus(404)))
        }
        transfer.size = size
        transfer.opened = takeConnection()
        let key = drawsPerPicture ? ImageRequestHandler.picture(path) : path
        let latency = UInt64(profile.latency(for: key, seed: seed) * 1e6)
        let answerAt = transfer.startedAt &+ latency &+ hostDelay &+ handshakeWait(opened: transfer.opened, at: transfer.startedAt)
        transfer.pending = clock.schedule(at: answerAt) { [self] in answer(transfer) }
        request.token.onCancel { [self] in cancel(transfer) }
    }

    func shutdown() {}

    // MARK: - the model

    /// A new connection's handshakes before its first answer: TCP's round trip, and TLS's.
    private var handshakeNanoseconds: UInt64 { tls ? 2 * roundTrip : roundTrip }

    /// True when the load opens a connection of its own.
    private func takeConnection() -> Bool {
        if http2 {
            guard http2ReadyAt == nil else { return false }
            http2ReadyAt = clock.now() &+ handshakeNanoseconds
            return true
        }
        guard idleConnections == 0 else {
            idleConnections -= 1
            return false
        }
        return true
    }

    /// How much longer than its latency an answer due now waits for its connection's handshake.
    private func handshakeWait(opened: Bool, at now: UInt64) -> UInt64 {
        if http2 {
            guard !http2Answered, let ready = http2ReadyAt else { return 0 }
            return ready - min(ready, now)
        }
        return opened ? handshakeNanoseconds : 0
    }

    /// The headers go out; the body follows through the link, a chunk at a time.
    private func answer(_ transfer: ModelledTransfer) {
        if http2 { http2Answered = true }
        transfer.answeredAt = clock.now()
        sendChunk(transfer)
    }

    private func sendChunk(_ transfer: ModelledTransfer) {
        let rest = transfer.size - transfer.received
        guard let link, rest > 0 else {
            transfer.received = transfer.size
            return finish(transfer)
        }
        let chunk = min(link.chunkSize, rest)
        let now = clock.now()
        transfer.pending = clock.schedule(at: link.reserve(chunk, now: now)) { [self] in
            transfer.received += chunk
            if transfer.received == transfer.size { finish(transfer) } else { sendChunk(transfer) }
        }
    }

    private func finish(_ transfer: ModelledTransfer) {
        if !http2 { idleConnections += 1 }  // kept alive for the next load
        record(transfer)
        let answeredAt = transfer.answeredAt ?? transfer.startedAt
        var result = FetchResult(bytes: [], size: transfer.size, timeToFirstByte: answeredAt - transfer.startedAt,
                                 transfer: clock.now() - answeredAt)
        result.connection = ConnectionFacts(protocolVersion: http2 ? "2" : "1.1", opened: transfer.opened,
                                            connect: transfer.opened ? roundTrip : 0, tlsHandshake: transfer.opened && tls ? roundTrip : 0)
        transfer.end(.success(result))
    }

    /// A cancel stops the transfer where it is, and its end (the completion, so the freed slot's
    /// next load) comes when the run loop next waits, after the rest of the frame's work: a real
    /// run's network thread learns of a cancel from a wake-up and aborts the transfer while the
    /// main loop goes on down the frame's rows, so the rows appearing in that frame queue their
    /// loads first. Ending it at once handed the slot to a load queued earlier (a prefetch),
    /// and a 3g fling's later rows found their image's load gone where the real run merged them.
    private func cancel(_ transfer: ModelledTransfer) {
        guard !transfer.ended, !transfer.stopping else { return }
        transfer.stopping = true
        if let pending = transfer.pending { clock.cancel(pending) }
        transfer.pending = clock.schedule(at: clock.now()) { [self] in
            // HTTP/1.1 loses the connection with the transfer; HTTP/2 resets a stream and keeps it.
            record(transfer)
            transfer.end(.failure(.cancelled(received: transfer.received, announced: transfer.answeredAt == nil ? nil : transfer.size)))
        }
    }

    private func record(_ transfer: ModelledTransfer) {
        wire?.recordModelled(opened: transfer.opened, body: transfer.received, connect: roundTrip, tlsHandshake: tls ? roundTrip : 0)
    }
}

/// One request in the model: where it is, and its completion, called once. `@unchecked
/// Sendable` for the clock's closures: like its transport, it is touched on the run loop's thread only.
private final class ModelledTransfer: @unchecked Sendable {
    let startedAt: UInt64
    private let completion: FetchCompletion
    var size = 0
    var received = 0
    var opened = false
    var answeredAt: UInt64?
    /// The clock's event this transfer waits for (its answer, its next chunk, or its cancel's end).
    var pending: UInt64?
    /// Cancelled, its end not yet reported.
    var stopping = false
    private(set) var ended = false

    init(startedAt: UInt64, completion: @escaping FetchCompletion) {
        self.startedAt = startedAt
        self.completion = completion
    }

    func end(_ result: Result<FetchResult, FetchError>) {
        guard !ended else { return }
        ended = true
        completion(result)
    }
}
