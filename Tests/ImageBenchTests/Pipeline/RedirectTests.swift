import Foundation
import Testing
@testable import ImageBench

/// A listening TCP socket on loopback that nobody serves: it shows whether a client tried it.
struct Listener {
    let descriptor: Int32
    let port: Int

    /// `backlog`: connections the kernel queues for it (0: one; the next SYNs are dropped).
    init(backlog: Int32 = 8) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, backlog) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        port = Int(UInt16(bigEndian: address.sin_port))
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Whether a connection is waiting to be accepted (someone tried).
    var wasTried: Bool {
        let client = Glibc.accept(descriptor, nil, nil)
        if client >= 0 { _ = Glibc.close(client) }
        return client >= 0
    }

    /// The next connection made to it, waited for up to `seconds`; nil if none came.
    func accept(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let client = Glibc.accept(descriptor, nil, nil)
            if client >= 0 { return client }
            usleep(10_000)
        } while Date() < deadline
        return nil
    }

    func close() { _ = Glibc.close(descriptor) }
}

extension ChildProcessRuns {
    @Suite("Redirects stay on the web")
    struct RedirectTests {
        @Test("a redirect to ftp:// (or file://) is refused without a connection; one to another http URL is followed")
        func redirectProtocols() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("redirects")
                defer { try? FileManager.default.removeItem(at: root) }
                let image = try #require(ImageCorpus.generate(count: 1, seed: 1).images.first)
                try Data(image.bytes).write(to: root.appendingPathComponent("photo.jpg"))
                let ftp = try Listener()
                defer { ftp.close() }
                let nginx = try Nginx(root: root, extra: """
                    location = /to-ftp.jpg { return 302 ftp://127.0.0.1:\(ftp.port)/photo.jpg; }
                    location = /to-file.jpg { return 302 file:///etc/passwd; }
                    location = /to-http.jpg { return 302 /photo.jpg; }
                    """)
                defer { nginx.stop() }
                let fetcher = CurlFetcher(limits: FetchLimits(timeoutMilliseconds: 3_000, stallMilliseconds: 1_000))
                for path in ["to-ftp.jpg", "to-file.jpg"] {
                    do throws(FetchError) {
                        _ = try fetcher.fetch("\(nginx.baseURL)/\(path)", expectedBytes: nil, token: LoadToken())
                        Issue.record("\(path): the redirect was followed")
                    } catch {
                        guard case .connection(let reason, _) = error else { Issue.record("\(path): \(error)"); continue }
                        #expect(reason.lowercased().contains("protocol"), "\(path): \(reason)")
                    }
                }
                #expect(!ftp.wasTried, "curl connected to the ftp:// target")
                let followed = try fetcher.fetch("\(nginx.baseURL)/to-http.jpg", expectedBytes: nil, token: LoadToken())
                #expect(followed.bytes == image.bytes)
            }
        }
        @Test("through a loop's parsed URLs: a redirect is followed and the next request on the handle goes where it asks; a refused one and a malformed URL fail as before")
        func parsedURLsFollowRedirects() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("parsed-redirects")
                defer { try? FileManager.default.removeItem(at: root) }
                let images = ImageCorpus.generate(count: 2, seed: 3).images
                for (index, image) in images.enumerated() { try Data(image.bytes).write(to: root.appendingPathComponent("\(index).jpg")) }
                let nginx = try Nginx(root: root, extra: """
                    location = /moved.jpg { return 302 /1.jpg; }
                    location = /to-ftp.jpg { return 302 ftp://127.0.0.1:1/0.jpg; }
                    """)
                defer { nginx.stop() }
                // One transfer at a time on one user's handle: each request reuses the handle the last one left.
                let transport = CurlMultiTransport(limits: FetchLimits(timeoutMilliseconds: 3_000, stallMilliseconds: 1_000), client: 1)
                defer { transport.shutdown() }
                func fetch(_ path: String) throws(FetchError) -> [UInt8] { try CurlLoopTests.fetch(transport, "\(nginx.baseURL)/\(path)") }
                #expect(try fetch("moved.jpg") == images[1].bytes)
                #expect(try fetch("0.jpg") == images[0].bytes, "the handle went back to the redirect's target")
                #expect(try fetch("moved.jpg") == images[1].bytes, "a parsed URL used twice")
                do throws(FetchError) {
                    _ = try fetch("to-ftp.jpg")
                    Issue.record("the redirect to ftp:// was followed")
                } catch {
                    guard case .connection(let reason, _) = error else { Issue.record("\(error)"); return }
                    #expect(reason.lowercased().contains("protocol"), "\(reason)")
                }
                #expect(try fetch("0.jpg") == images[0].bytes)
                let token = LoadToken()
                _ = token.begin()
                #expect(throws: FetchError.self) { try transport.fetch("http://[::1", expectedBytes: nil, attempt: 1, token: token) }
            }
        }
    }
}
