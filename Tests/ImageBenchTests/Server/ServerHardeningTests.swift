import Foundation
import Testing
@testable import ImageBench

/// A raw TCP connection to loopback, for peers no HTTP client library would be: half a request,
/// nothing at all, `Connection: close`.
struct RawConnection {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard descriptor >= 0, connected else {
            if descriptor >= 0 { _ = Glibc.close(descriptor) }
            throw CocoaError(.fileReadUnknown)
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(descriptor, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the peer closes (or 5 s pass): the text, and whether it closed.
    func readToEnd() -> (text: String, closed: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return (String(decoding: bytes, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: bytes, as: UTF8.self), false) }
            bytes += buffer[0..<count]
        }
    }

    func close() { _ = Glibc.close(descriptor) }
}

@Suite("The embedded server against hostile peers", .serialized)
struct ServerHardeningTests {
    static let corpus = ImageCorpus.generate(count: 6, seed: 7)

    @Test("a peer that sends half a request, or nothing, is closed after the request timeout; others keep being answered")
    func requestTimeout() async throws {
        try await onOwnThread {
            let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: .unshaped, seed: 1,
                                         limits: ConnectionLimits(requestTimeout: 0.5))
            defer { server.shutdown() }
            let half = try RawConnection(port: server.port)
            defer { half.close() }
            half.send("GET /\(Self.corpus.images[0].path) HTTP/1.1\r\nHost: x\r\n")  // and never the blank line
            let silent = try RawConnection(port: server.port)
            defer { silent.close() }
            let image = Self.corpus.images[1]
            #expect(try CurlFetcher().fetch("\(server.baseURL)/\(image.path)", expectedBytes: nil, token: LoadToken()).bytes == image.bytes)
            // The sweep runs every 0.5 s: both are gone well within the 5 s the reads wait.
            #expect(half.readToEnd() == ("", true))
            #expect(silent.readToEnd() == ("", true))
            #expect(server.connectionCounts.timedOut >= 2)
        }
    }

    @Test("Connection: close gets its response, the header, and the connection closed")
    func connectionClose() async throws {
        try await onOwnThread {
            let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: .unshaped, seed: 1)
            defer { server.shutdown() }
            let image = Self.corpus.images[2]
            let peer = try RawConnection(port: server.port)
            defer { peer.close() }
            peer.send("GET /\(image.path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let (text, closed) = peer.readToEnd()
            #expect(closed, "the server kept the connection open")
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.lowercased().contains("\r\nconnection: close\r\n"), "\(text.prefix(200))")
            #expect(text.utf8.count > image.bytes.count)
        }
    }

    @Test("over the connection cap, the peer waiting longest for a request is closed, and a fetch still gets through")
    func connectionCap() async throws {
        try await onOwnThread {
            let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: .unshaped, seed: 1,
                                         limits: ConnectionLimits(requestTimeout: 60, maxConnections: 8))
            defer { server.shutdown() }
            #expect(server.connectionCounts.cap == 8)
            var idle: [RawConnection] = []
            defer { idle.forEach { $0.close() } }
            for _ in 0..<30 {
                let peer = try RawConnection(port: server.port)
                peer.send("GET /img/")
                idle.append(peer)
            }
            let image = Self.corpus.images[3]
            #expect(try CurlFetcher().fetch("\(server.baseURL)/\(image.path)", expectedBytes: nil, token: LoadToken()).bytes == image.bytes)
            #expect(idle[0].readToEnd().closed, "the oldest idle peer was not closed")
            #expect(server.connectionCounts.evicted >= 22 && server.connectionCounts.open <= 8, "\(server.connectionCounts)")
        }
    }

    @Test("/manifest.json is valid JSON for hostile file names, ignores the Host header, and every URL it lists answers")
    func manifest() async throws {
        try await onOwnThread {
            let root = try Fixtures.temporaryDirectory("hostile-names")
            defer { try? FileManager.default.removeItem(at: root) }
            let names = ["quote\"d.jpg", "back\\slash.jpg", "with space.jpg", "plain.jpg"]
            for (index, name) in names.enumerated() {
                try Data(Self.corpus.images[index].bytes).write(to: root.appendingPathComponent(name))
            }
            try Data("[\"http://127.0.0.1:8080/stale.jpg\"]".utf8).write(to: root.appendingPathComponent("manifest.json"))
            try Data("not an image".utf8).write(to: root.appendingPathComponent("notes.txt"))
            let server = try ImageServer(files: ServedFiles(directory: root), profile: .unshaped, seed: 1)
            defer { server.shutdown() }
            let peer = try RawConnection(port: server.port)
            defer { peer.close() }
            peer.send("GET /manifest.json HTTP/1.1\r\nHost: evil.example:666/\"]}\r\nConnection: close\r\n\r\n")
            let (text, _) = peer.readToEnd()
            let body = try #require(text.range(of: "\r\n\r\n").map { text[$0.upperBound...] })
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]])
            let urls = entries.compactMap { $0["url"] as? String }
            #expect(urls.count == names.count, "\(urls)")  // images only: not notes.txt, not the stale manifest
            #expect(urls.allSatisfy { $0.hasPrefix(server.baseURL + "/") && !$0.contains("evil") }, "\(urls)")
            let fetcher = CurlFetcher()
            for (url, entry) in zip(urls, entries) {
                #expect(try fetcher.fetch(url, expectedBytes: nil, token: LoadToken()).bytes.count == entry["bytes"] as? Int, "\(url)")
            }
            let csv = try fetcher.fetch("\(server.baseURL)/manifest.csv", expectedBytes: nil, token: LoadToken()).bytes
            #expect(try Manifest.parse(Data(csv), name: "manifest.csv").map(\.url) == urls)
        }
    }

    @Test("a fault rate is a share of requests: one path asked 400 times meets about its rate, the same ones again after a restart")
    func faultsPerRequest() async throws {
        try await onOwnThread {
            let server = try ImageServer(files: ServedFiles(corpus: Self.corpus), profile: .unshaped, seed: 3,
                                         faults: try ServerFaults(parsing: "error=10%"))
            defer { server.shutdown() }
            let fetcher = CurlFetcher()
            let url = "\(server.baseURL)/\(Self.corpus.images[0].path)"
            func outcomes() -> [Bool] {
                (0..<400).map { _ in (try? fetcher.fetch(url, expectedBytes: nil, token: LoadToken())) != nil }
            }
            let first = outcomes()
            let failed = first.count { !$0 }
            // 10% of 400 is 40, standard deviation 6: 4 of them either side.
            #expect((16...64).contains(failed), "\(failed) of 400 failed")
            server.restartFaultDraws()
            #expect(outcomes() == first, "a restart must meet the same faults on the same requests")
        }
    }
}

@Suite("Peers that break a response")
struct BrokenResponseTests {
    /// Answers one connection with `reply`, then closes it.
    static func answerOnce(_ listener: Listener, with reply: String) {
        Thread.detachNewThread {
            guard let client = listener.accept(within: 10) else { return }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            _ = recv(client, &buffer, buffer.count, 0)
            _ = reply.utf8CString.withUnsafeBufferPointer { send(client, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            _ = Glibc.close(client)
        }
    }

    @Test("a peer that closes inside the headers is a connection error (not an empty image), on either transport")
    func headersCut() async throws {
        try await onOwnThread {
            for kind in TransportKind.allCases {
                let listener = try Listener()
                defer { listener.close() }
                Self.answerOnce(listener, with: "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Len")
                let transport = kind.make(limits: FetchLimits(timeoutMilliseconds: 5_000, stallMilliseconds: 2_000))
                defer { transport.shutdown() }
                do throws(FetchError) {
                    let result = try transport.fetch("http://127.0.0.1:\(listener.port)/a.jpg", expectedBytes: nil, token: LoadToken())
                    Issue.record("\(kind): a cut response was taken for \(result.bytes.count) bytes")
                } catch {
                    guard case .connection = error else { Issue.record("\(kind): \(error)"); continue }
                }
            }
        }
    }
}
