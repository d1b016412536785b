import Foundation
import Testing
@testable import ImageBench

extension RawConnection {
    /// Sends what the kernel takes now without waiting (a peer that never reads soon fills both
    /// socket buffers): the bytes sent, 0 when full, -1 when the connection is gone.
    func sendWithoutWaiting(_ bytes: [UInt8]) -> Int {
        let sent = bytes.withUnsafeBufferPointer { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return sent >= 0 ? sent : (errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1)
    }

    /// The next `count` responses (head and Content-Length body each), or fewer if the peer
    /// closed or went quiet for 5 s: each one's status line and body.
    func readResponses(_ count: Int) -> [(status: String, body: [UInt8])] {
        var pending: [UInt8] = []
        var cursor = 0  // where the next response begins in `pending`
        var responses: [(status: String, body: [UInt8])] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while responses.count < count {
            if let end = pending[cursor...].firstRange(of: separator) {
                let head = String(decoding: pending[cursor..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
                let length = head.first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) } ?? 0
                if pending.count - end.upperBound >= length {
                    responses.append((String(head.first ?? ""), Array(pending[end.upperBound..<end.upperBound + length])))
                    cursor = end.upperBound + length
                    continue
                }
            }
            let received = recv(descriptor, &buffer, buffer.count, 0)
            if received <= 0 { break }
            pending += buffer[0..<received]
        }
        return responses
    }
}

/// A pipelined request for each path, in order.
func pipelined(_ paths: [String]) -> [UInt8] {
    Array(paths.map { "GET /\($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined().utf8)
}

@Suite("The embedded server against peers that read slowly or not at all", .serialized)
struct ServerBackpressureTests {
    static let corpus = ImageCorpus.generate(count: 12, seed: 7)

    @Test("a pipelining peer that reads only after sending gets every answer, in order, unshaped and paced by a link")
    func pipelinedInOrder() async throws {
        try await onOwnThread {
            // 600 answers, several MB: more than the socket buffers hold, so the server stalls
            // on the write buffer's high water mark and must resume where it stopped.
            let images = (0..<600).map { Self.corpus.images[$0 % Self.corpus.images.count] }
            #expect(images.reduce(0) { $0 + $1.bytes.count } > 8_000_000)
            let fast = try NetworkProfile(parsing: "bandwidth=200MB/s")
            for profile in [NetworkProfile.unshaped, fast] {
                let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: profile, seed: 1)
                defer { server.shutdown() }
                let peer = try RawConnection(port: server.port)
                defer { peer.close() }
                var request = pipelined(images.map(\.path))[...]
                while !request.isEmpty {
                    let sent = peer.sendWithoutWaiting(Array(request))
                    try #require(sent >= 0, "the server closed the connection")
                    request = request.dropFirst(sent)
                    if sent == 0 { Thread.sleep(forTimeInterval: 0.001) }
                }
                // Not reading yet: wait until the server's output stalls (it has written, and writes
                // no more while nobody reads), so the reads below resume a stalled connection.
                var written = -1
                #expect(waitUntil(every: 0.05) {
                    defer { written = server.bytesSent }
                    return written > 0 && server.bytesSent == written
                }, "\(profile.name): the output never stalled")
                let responses = peer.readResponses(images.count)
                #expect(responses.count == images.count, "\(profile.name)")
                let wrong = zip(responses, images).enumerated()
                    .filter { $0.element.0.status != "HTTP/1.1 200 OK" || $0.element.0.body != $0.element.1.bytes }.map(\.offset)
                #expect(wrong.isEmpty, "\(profile.name): answers \(wrong.prefix(5)) (\(responses.first?.status ?? "")) are not their request's image")
            }
        }
    }

    @Test("a peer that pipelines and never reads is closed after the send timeout, one that reads slowly is not; others keep being answered")
    func sendTimeout() async throws {
        try await onOwnThread {
            var limits = ConnectionLimits(requestTimeout: 60)
            limits.sendTimeout = 2
            let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: .unshaped, seed: 1, limits: limits)
            defer { server.shutdown() }
            let requests = pipelined(Self.corpus.images.map(\.path))
            let silent = try RawConnection(port: server.port)
            defer { silent.close() }
            let slow = try RawConnection(port: server.port)
            defer { slow.close() }
            var buffer = [UInt8](repeating: 0, count: 128 * 1_024)
            // The slow peer reads 128 kB every 50 ms on a thread of its own, so no pause of the
            // loop below (a busy CI host's) keeps it from making progress each time the server
            // looks; a stall of two whole seconds would be needed to close it.
            let reading = Locked(true)
            let descriptor = slow.descriptor
            let reader = Thread {
                var own = [UInt8](repeating: 0, count: 128 * 1_024)
                while reading.withLockedValue({ $0 }) {
                    _ = recv(descriptor, &own, own.count, Int32(MSG_DONTWAIT))
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            reader.start()
            // 5 s, two and a half send timeouts: the silent peer fills its buffers and stops.
            let start = Date()
            var closedAfter: Double?
            while Date().timeIntervalSince(start) < 5 {
                // Both ask for more than they read, until the server stops reading them.
                for _ in 0..<200 where slow.sendWithoutWaiting(requests) > 0 {}
                var sent = 1
                for _ in 0..<200 where sent > 0 { sent = silent.sendWithoutWaiting(requests) }
                if sent < 0, closedAfter == nil { closedAfter = Date().timeIntervalSince(start) }
                Thread.sleep(forTimeInterval: 0.2)
            }
            reading.withLockedValue { $0 = false }
            Thread.sleep(forTimeInterval: 0.1)  // the reader's last recv is over
            let image = Self.corpus.images[1]
            #expect(try CurlFetcher().fetch("\(server.baseURL)/\(image.path)", expectedBytes: nil, token: LoadToken()).bytes == image.bytes)
            #expect(server.connectionCounts.sendTimedOut == 1, "\(server.connectionCounts)")
            #expect(server.connectionCounts.timedOut == 0, "the request timeout must not be what closed it")
            // Not before the timeout: it stalls within a few sends, and the sweep looks every 0.5 s.
            #expect(closedAfter.map { $0 >= 2 } ?? true, "closed after \(closedAfter ?? 0) s")
            #expect(recv(slow.descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0, "the slow reader was closed")
        }
    }
}
