import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// `imgbench serve --tls` and plain `imgbench serve` as a user runs them, curl the client.
    @Suite("imgbench serve over TLS and HTTP/2", .serialized)
    struct ServeTLSCommandTests {
        /// A folder with one generated JPEG at img/0.jpg, to compare what curl receives with.
        static func corpus(in directory: URL) throws -> (folder: URL, image: Data) {
            let folder = directory.appendingPathComponent("corpus")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("img"), withIntermediateDirectories: true)
            let image = Data(try #require(ImageCorpus.generate(count: 4, seed: 3).images.first { $0.format == .jpeg }).bytes)
            try image.write(to: folder.appendingPathComponent("img/0.jpg"))
            return (folder, image)
        }

        static func stop(_ server: BackgroundRun) {
            kill(server.process.processIdentifier, SIGINT)
            server.process.waitUntilExit()
        }

        @Test("--tls: curl --http2 --cacert gets the file over h2, --http1.1 over TLS too; the CA's path is printed and verifies")
        func tls() async throws {
            try await onOwnThread {
                let directory = try Fixtures.temporaryDirectory("serve-tls")
                defer { try? FileManager.default.removeItem(at: directory) }
                let (folder, image) = try Self.corpus(in: directory)
                let tlsDirectory = directory.appendingPathComponent("tls")
                let server = try BackgroundRun(["serve", "--port", "0", "--corpus", folder.path, "--network", "loopback",
                                                "--tls", "--tls-dir", tlsDirectory.path], log: directory.appendingPathComponent("stderr.log"))
                defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
                let url = try ServeCommandTests.address(of: server)
                let caFile = tlsDirectory.appendingPathComponent("ca.pem").path
                #expect(url.hasPrefix("https://"))
                #expect(server.output.contains("trust the CA at \(caFile)"), "\(server.output)")
                let body = directory.appendingPathComponent("body.jpg")
                let h2 = try CurlTool.run(["--http2", "--cacert", caFile, "-o", body.path, "-w", CurlTool.writeOut, url + "/img/0.jpg"])
                #expect(CurlTool.transfers(in: h2.output).map { "\($0.httpVersion) \($0.status)" } == ["2 200"], "\(h2.output)")
                #expect(try Data(contentsOf: body) == image)
                let http1 = try CurlTool.run(["--http1.1", "--cacert", caFile, "-o", "/dev/null", "-w", CurlTool.writeOut, url + "/img/0.jpg"])
                #expect(CurlTool.transfers(in: http1.output).map { "\($0.httpVersion) \($0.status)" } == ["1.1 200"], "\(http1.output)")
                // Not trusted without the CA: the certificate is no public one.
                #expect(try CurlTool.run(["--http2", "-o", "/dev/null", url + "/img/0.jpg"], showErrors: false).status == 60)
                Self.stop(server)
                #expect(server.process.terminationStatus == 0, "\(server.output)")
                let verified = try ThrowawayCertificatesTests.openssl(["verify", "-CAfile", caFile, tlsDirectory.appendingPathComponent("server.pem").path])
                #expect(verified.status == 0, "\(verified.output)")
            }
        }

        @Test("--tls-cert and --tls-key serve the user's own certificate")
        func ownCertificate() async throws {
            try await onOwnThread {
                let directory = try Fixtures.temporaryDirectory("serve-own-cert")
                defer { try? FileManager.default.removeItem(at: directory) }
                let (folder, _) = try Self.corpus(in: directory)
                let certificates = try ThrowawayCertificates(directory: directory.appendingPathComponent("mine"))
                let server = try BackgroundRun(["serve", "--port", "0", "--corpus", folder.path, "--network", "loopback",
                                                "--tls-cert", certificates.certificateFile, "--tls-key", certificates.keyFile],
                                               log: directory.appendingPathComponent("stderr.log"))
                defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
                let url = try ServeCommandTests.address(of: server)
                let h2 = try CurlTool.run(["--http2", "--cacert", certificates.caFile, "-o", "/dev/null", "-w", CurlTool.writeOut, url + "/img/0.jpg"])
                #expect(CurlTool.transfers(in: h2.output).map { "\($0.httpVersion) \($0.status)" } == ["2 200"], "\(h2.output)")
                Self.stop(server)
                #expect(server.process.terminationStatus == 0, "\(server.output)")
            }
        }

        @Test("without --tls: HTTP/1.1 and h2c by prior knowledge on the same port")
        func clearText() async throws {
            try await onOwnThread {
                let directory = try Fixtures.temporaryDirectory("serve-h2c")
                defer { try? FileManager.default.removeItem(at: directory) }
                let (folder, image) = try Self.corpus(in: directory)
                let server = try BackgroundRun(["serve", "--port", "0", "--corpus", folder.path, "--network", "loopback"],
                                               log: directory.appendingPathComponent("stderr.log"))
                defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
                let url = try ServeCommandTests.address(of: server)
                #expect(server.output.contains("HTTP/1.1 and h2c"), "\(server.output)")
                let body = directory.appendingPathComponent("body.jpg")
                let h2c = try CurlTool.run(["--http2-prior-knowledge", "-o", body.path, "-w", CurlTool.writeOut, url + "/img/0.jpg"])
                #expect(CurlTool.transfers(in: h2c.output).map { "\($0.httpVersion) \($0.status)" } == ["2 200"], "\(h2c.output)")
                #expect(try Data(contentsOf: body) == image)
                let http1 = try CurlTool.run(["--http1.1", "-o", "/dev/null", "-w", CurlTool.writeOut, url + "/img/0.jpg"])
                #expect(CurlTool.transfers(in: http1.output).map { "\($0.httpVersion) \($0.status)" } == ["1.1 200"], "\(http1.output)")
                Self.stop(server)
                #expect(server.process.terminationStatus == 0, "\(server.output)")
                #expect(server.output.contains("stopped after 2 requests"), "\(server.output)")
            }
        }

        @Test("an unreadable or invalid --tls-cert, or one without --tls-key, is one line and exit 64")
        func badCertificate() throws {
            let directory = try Fixtures.temporaryDirectory("serve-bad-cert")
            defer { try? FileManager.default.removeItem(at: directory) }
            let notPEM = directory.appendingPathComponent("not.pem")
            try Data("hello".utf8).write(to: notPEM)
            let cases: [([String], String)] = [
                (["--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"], "cannot read /nonexistent/cert.pem"),
                (["--tls-cert", notPEM.path, "--tls-key", notPEM.path], "\(notPEM.path): not a PEM certificate"),
                (["--tls-cert", notPEM.path], "--tls-cert needs --tls-key"),
            ]
            for (arguments, reason) in cases {
                let (status, output) = try Fixtures.imgbench(["serve", "--port", "0", "--images", "1"] + arguments)
                #expect(status == 64, "\(output)")
                #expect(output.split(separator: "\n").count == 1 && output.contains(reason), "\(output)")
            }
        }
    }
}
