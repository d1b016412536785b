import Foundation
import Testing
@testable import ImageBench

/// `--timeout` bounds a whole transfer, even one whose bytes never stop coming (so the stall rule
/// never fires). The blocking transport leaves it to curl (CURLOPT_TIMEOUT_MS); the multi
/// transport's loop keeps one of a second or more in its sweep instead, since curl's timer costs
/// each transfer some 800 instructions, and leaves a shorter one to curl. Every way must end
/// such a transfer as a timeout, with the bytes it got.
@Suite("transfer timeout")
struct TransferTimeoutTests {
    @Test("a body still trickling in at --timeout ends as a timeout with the bytes it got, on either transport")
    func tricklingBodyTimesOut() async throws {
        try await onOwnThread {
            // 500 ms: curl's timer on either transport; 1 s: the multi transport's sweep.
            for (kind, timeout) in TransportKind.allCases.flatMap({ kind in [500, 1_000].map { (kind, $0) } }) {
                let listener = try Listener()
                defer { listener.close() }
                let ended = Self.trickle(listener)
                let transport = kind.make(limits: FetchLimits(timeoutMilliseconds: timeout, stallMilliseconds: 60_000))
                defer { transport.shutdown() }
                do throws(FetchError) {
                    let result = try transport.fetch("http://127.0.0.1:\(listener.port)/a.jpg")
                    Issue.record("\(kind), \(timeout) ms: the transfer outlived --timeout and delivered \(result.bytes.count) bytes")
                } catch {
                    // Only --timeout can end it: bytes come every 20 ms, the stall rule waits a minute.
                    guard case .timeout(let partial) = error else { Issue.record("\(kind), \(timeout) ms: \(error)"); continue }
                    #expect(partial.bytes > 0 && partial.bytes < Self.bodyBytes, "\(kind), \(timeout) ms: \(partial.bytes) bytes")
                }
                // The peer saw the transfer end: its sends fail once the client has closed.
                #expect(waitUntil(deadline: 30) { ended.withLockedValue { $0 } }, "\(kind), \(timeout) ms")
            }
        }
    }

    static let bodyBytes = 1_000_000

    /// Answers one request with a 1 MB body, 100 bytes every 20 ms (5 kB/s: minutes for all of
    /// it), until the client goes away or a minute has passed.
    static func trickle(_ listener: Listener) -> Locked<Bool> {
        let ended = Locked(false)
        Thread.detachNewThread {
            defer { ended.withLockedValue { $0 = true } }
            guard let client = listener.accept(within: 30) else { return }
            defer { _ = Glibc.close(client) }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            guard read(client, &buffer, buffer.count) > 0 else { return }
            let head = Array("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(bodyBytes)\r\n\r\n".utf8)
            guard send(client, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return }
            let piece = [UInt8](repeating: 0x55, count: 100)
            for _ in 0..<3_000 {
                guard send(client, piece, piece.count, Int32(MSG_NOSIGNAL)) == piece.count else { return }
                usleep(20_000)
            }
        }
        return ended
    }
}
