import Foundation

/// A hostile HTTP peer on loopback that answers each request with whatever its script returns:
/// raw bytes, so a test can send what no well-behaved server would (a Content-Range ending at
/// 2^63 - 1, a body without Content-Length, a silence after the first answer). One thread per
/// connection; every connection closes after its answer (`nil` from the script: never answers).
/// It stops serving when `stop` is called; after `lifetime` seconds it takes no new connection
/// (the first one after that ends its accept loop) and its open ones stop waiting.
final class ScriptedServer: @unchecked Sendable {
    // @unchecked: `descriptor` and `port` are set once in init; `served` and `closed` are
    // guarded by `lock`.
    let port: Int
    private let descriptor: Int32
    private let lock = NSLock()
    private var served = 0
    private var closed = false
    private let script: @Sendable (_ request: String, _ index: Int) -> [UInt8]?

    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(lifetime: Double = 60, script: @escaping @Sendable (_ request: String, _ index: Int) -> [UInt8]?) throws {
        self.script = script
        let listener = try Listener()
        descriptor = listener.descriptor
        port = listener.port
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let deadline = Date().addingTimeInterval(lifetime)
        Thread.detachNewThread { [self] in
            // Only this thread closes the listener, and only after its last accept: closed from
            // stop() while this loop came round again, the descriptor's number could go to the
            // next test's server, and this loop would answer its requests with this script (a CI
            // run's honest 206 got the previous case's hostile Content-Range).
            defer { lock.withLock { closed = true; _ = Glibc.close(descriptor) } }
            while Date() < deadline {
                let client = accept(descriptor, nil, nil)
                if client < 0 && errno == EINTR { continue }  // a signal, not stop()
                guard client >= 0 else { return }  // shut down by stop()
                Thread.detachNewThread { [self] in handle(client, until: deadline) }
            }
        }
    }

    /// Requests received so far.
    var requests: Int { lock.withLock { served } }

    /// Wakes the accepting thread, which closes the listener; a descriptor already closed is
    /// not touched (its number may be someone else's by now).
    func stop() { lock.withLock { if !closed { _ = shutdown(descriptor, Int32(SHUT_RDWR)) } } }

    private func handle(_ client: Int32, until deadline: Date) {
        defer { _ = Glibc.close(client) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[0..<count]
        }
        let index = lock.withLock { defer { served += 1 }; return served }
        guard let answer = script(String(decoding: request, as: UTF8.self), index) else {
            // Silence: hold the connection open until the peer gives up or the server's time is up.
            while Date() < deadline && read(client, &buffer, buffer.count) > 0 {}
            return
        }
        var sent = 0
        while sent < answer.count {
            let count = answer[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// An HTTP/1.1 answer with these headers (Connection: close added) and body.
    static func answer(_ status: String, headers: [String], body: [UInt8]) -> [UInt8] {
        Array(("HTTP/1.1 \(status)\r\n" + (headers + ["Connection: close"]).map { $0 + "\r\n" }.joined() + "\r\n").utf8) + body
    }
}

private extension Array where Element == UInt8 {
    var containsHeaderEnd: Bool {
        count >= 4 && (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
