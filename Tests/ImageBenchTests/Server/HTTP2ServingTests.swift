import Foundation
import Testing
@testable import ImageBench

/// The embedded server over HTTP/2 (h2 by ALPN over TLS, h2c by prior knowledge in clear text),
/// with curl's command-line tool as the client: a real nghttp2 and OpenSSL peer.
@Suite("HTTP/2 serving", .serialized)
struct HTTP2ServingTests {
    /// Files of known bytes and sizes: two images and two 1 MB blobs, for paced transfers.
    static func servedFiles() throws -> (files: ServedFiles, directory: URL) {
        let directory = try Fixtures.temporaryDirectory("h2-files")
        let corpus = ImageCorpus.generate(count: 2, seed: 7)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("img"), withIntermediateDirectories: true)
        for (index, image) in corpus.images.enumerated() {
            try Data(image.bytes).write(to: directory.appendingPathComponent("img/\(index).\(image.format.fileExtension)"))
        }
        var generator = SystemRandomNumberGenerator()
        for name in ["a.bin", "b.bin"] {
            try Data((0..<1_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: directory.appendingPathComponent(name))
        }
        return (try ServedFiles(directory: directory), directory)
    }

    static func withServer<T>(network: String = "loopback", faults: ServerFaults = .none, tls: Bool,
                              _ body: (ImageServer, _ caFile: String?, _ files: ServedFiles) throws -> T) throws -> T {
        let (files, directory) = try servedFiles()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = tls ? try ThrowawayCertificates(directory: directory.appendingPathComponent("tls")) : nil
        let server = try ImageServer(files: files, profile: try NetworkProfile(parsing: network), seed: 1, faults: faults,
                                     tls: try certificates?.identity())
        defer { server.shutdown() }
        return try body(server, certificates?.caFile, files)
    }

    @Test("over TLS, curl -Z fetches several URLs as streams of one h2 connection, bodies intact")
    func multiplexedOverTLS() async throws {
        try await onOwnThread {
            try Self.withServer(tls: true) { server, caFile, files in
                let paths = files.paths.filter { $0.hasPrefix("/img/") }
                let urls = (paths + paths + paths).map { server.baseURL + $0 }
                #expect(server.baseURL.hasPrefix("https://"))
                let (status, output) = try CurlTool.run(["--http2", "-Z", "--cacert", caFile!, "-w", CurlTool.writeOut]
                                                        + urls.flatMap { ["-o", "/dev/null", $0] })
                #expect(status == 0, "\(output)")
                let transfers = CurlTool.transfers(in: output)
                #expect(transfers.count == urls.count, "\(output)")
                #expect(transfers.allSatisfy { $0.httpVersion == "2" && $0.status == 200 }, "\(output)")
                let counts = server.counts
                #expect(counts.requests == urls.count)
                #expect(counts.connections == 1 && counts.http2Connections == 1, "\(counts)")
                #expect(server.bytesSent == urls.reduce(0) { $0 + files.files[String($1.dropFirst(server.baseURL.count))]!.body.readableBytes })
            }
        }
    }

    @Test("in clear text, h2c by prior knowledge and HTTP/1.1 share the port; a body over h2c is the file")
    func priorKnowledgeBesideHTTP1() async throws {
        try await onOwnThread {
            try Self.withServer(tls: false) { server, _, files in
                let directory = try Fixtures.temporaryDirectory("h2c-body")
                defer { try? FileManager.default.removeItem(at: directory) }
                let path = try #require(files.paths.first { $0.hasPrefix("/img/") })
                let body = directory.appendingPathComponent("body")
                let h2c = try CurlTool.run(["--http2-prior-knowledge", "-o", body.path, "-w", CurlTool.writeOut, server.baseURL + path])
                #expect(CurlTool.transfers(in: h2c.output).map { "\($0.httpVersion) \($0.status)" } == ["2 200"], "\(h2c.output)")
                #expect(try Data(contentsOf: body) == Data(files.files[path]!.body.readableBytesView))
                let http1 = try CurlTool.run(["--http1.1", "-o", "/dev/null", "-w", CurlTool.writeOut, server.baseURL + path])
                #expect(CurlTool.transfers(in: http1.output).map { "\($0.httpVersion) \($0.status)" } == ["1.1 200"], "\(http1.output)")
                // The manifest over h2c names this server's own http:// address.
                let manifest = try CurlTool.run(["--http2-prior-knowledge", server.baseURL + "/manifest.csv"])
                #expect(manifest.output.contains(server.baseURL + path), "\(manifest.output)")
                let counts = server.counts
                #expect(counts.connections == 3 && counts.http2Connections == 2, "\(counts)")
            }
        }
    }

    @Test("over h2c, a Range is answered 206 with its bytes, and an injected error is a 5xx, per stream")
    func rangeAndFaultsPerStream() async throws {
        try await onOwnThread {
            try Self.withServer(tls: false) { server, _, _ in
                let ranged = try CurlTool.run(["--http2-prior-knowledge", "-r", "0-99", "-o", "/dev/null", "-w", "%{http_version} %{http_code} %{size_download}",
                                               server.baseURL + "/a.bin"])
                #expect(ranged.output == "2 206 100", "\(ranged.output)")
                #expect(server.rangeRequests.map(\.first) == [0])
            }
            try Self.withServer(faults: try ServerFaults(parsing: "error=100%"), tls: false) { server, _, _ in
                let failed = try CurlTool.run(["--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                                               server.baseURL + "/a.bin"])
                #expect(["2 500", "2 503"].contains(failed.output), "\(failed.output)")
                #expect(server.counts.faults[.error] == 1)
            }
        }
    }

    @Test("each stream of one h2 connection waits its own shaped latency (time to first byte >= 100 ms)")
    func latencyPerStream() async throws {
        try await onOwnThread {
            try Self.withServer(network: "latency=100ms,jitter=0ms", tls: true) { server, caFile, files in
                let urls = files.paths.filter { $0.hasPrefix("/img/") }.map { server.baseURL + $0 } + [server.baseURL + "/manifest.json"]
                let (_, output) = try CurlTool.run(["--http2", "-Z", "--cacert", caFile!, "-w", CurlTool.writeOut]
                                                   + urls.flatMap { ["-o", "/dev/null", $0] })
                let transfers = CurlTool.transfers(in: output)
                #expect(transfers.count == urls.count && transfers.allSatisfy { $0.httpVersion == "2" && $0.status == 200 }, "\(output)")
                // Image paths wait their latency; a lower bound only (a busy machine only adds).
                for transfer in transfers where transfer.url.contains("/img/") {
                    #expect(transfer.firstByteSeconds >= 0.099, "\(transfer)")
                }
                #expect(server.counts.connections == 1)
            }
        }
    }

    @Test("a stream the client resets stops its paced body; the connection's other stream completes")
    func resetStreamStopsSending() async throws {
        try await onOwnThread {
            // 2 MB/s: each 1 MB blob alone takes 0.5 s of the link, shared by both streams.
            try Self.withServer(network: "latency=0ms,jitter=0ms,bandwidth=2MB/s", tls: true) { server, caFile, _ in
                // --max-filesize: curl sees the 1 MB Content-Length and cancels that transfer at
                // once (RST_STREAM), as a cancelled load does; the transfer after --next goes on.
                let (_, output) = try CurlTool.run(["--http2", "-Z", "--cacert", caFile!, "-w", CurlTool.writeOut,
                                                    "--max-filesize", "1000", "-o", "/dev/null", server.baseURL + "/a.bin",
                                                    "--next", "--http2", "--cacert", caFile!, "-w", CurlTool.writeOut,
                                                    "-o", "/dev/null", server.baseURL + "/b.bin"])
                let transfers = CurlTool.transfers(in: output)
                let reset = try #require(transfers.first { $0.url.hasSuffix("/a.bin") }, "\(output)")
                let whole = try #require(transfers.first { $0.url.hasSuffix("/b.bin") }, "\(output)")
                #expect(reset.exitCode == 63, "\(output)")  // CURLE_FILESIZE_EXCEEDED
                #expect(whole.exitCode == 0 && whole.status == 200 && whole.httpVersion == "2", "\(output)")
                #expect(server.counts.connections == 1, "\(server.counts)")
                // Had a.bin gone on, it would have shared the link with b.bin to the end: most of
                // its megabyte sent by the time b.bin's was.
                let sentOfReset = server.bytesSent - 1_000_000
                #expect(sentOfReset < 500_000, "\(sentOfReset) bytes of the reset stream sent")
                // The connection's guard counts the reset stream as answered: it idles again.
                #expect(server.connectionCounts.open <= 1)
            }
        }
    }
}
