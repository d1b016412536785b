import Foundation
import Testing
@testable import ImageBench

/// The CA and server certificate `serve --tls` makes, checked by OpenSSL's own tool.
@Suite("Throwaway certificates")
struct ThrowawayCertificatesTests {
    static func openssl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(["/usr/bin/openssl", "/bin/openssl"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }, "openssl"))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test("the server certificate verifies against the CA, for 127.0.0.1 and localhost, as a TLS server; the key is private")
    func verifies() throws {
        let directory = try Fixtures.temporaryDirectory("certificates")
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ThrowawayCertificates(directory: directory.appendingPathComponent("tls"))
        let verified = try Self.openssl(["verify", "-CAfile", made.caFile, "-purpose", "sslserver", made.certificateFile])
        #expect(verified.status == 0 && verified.output.contains(": OK"), "\(verified.output)")
        for (name, check) in [("localhost", "-verify_hostname"), ("127.0.0.1", "-verify_ip")] {
            let named = try Self.openssl(["verify", "-CAfile", made.caFile, check, name, made.certificateFile])
            #expect(named.status == 0, "\(name): \(named.output)")
        }
        let elsewhere = try Self.openssl(["verify", "-CAfile", made.caFile, "-verify_hostname", "example.com", made.certificateFile])
        #expect(elsewhere.status != 0)
        let ca = try Self.openssl(["x509", "-in", made.caFile, "-noout", "-text"])
        #expect(ca.output.contains("CA:TRUE") && ca.output.contains("Certificate Sign") && ca.output.contains("prime256v1"), "\(ca.output)")
        let leaf = try Self.openssl(["x509", "-in", made.certificateFile, "-noout", "-text"])
        #expect(leaf.output.contains("TLS Web Server Authentication") && leaf.output.contains("CA:FALSE"), "\(leaf.output)")
        let mode = try FileManager.default.attributesOfItem(atPath: made.keyFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        _ = try made.identity()
        // Two makes, two CAs: one's CA does not vouch for the other's server.
        let other = try ThrowawayCertificates(directory: directory.appendingPathComponent("other"))
        #expect(try Self.openssl(["verify", "-CAfile", other.caFile, made.certificateFile]).status != 0)
    }

    @Test("a missing file is unreadable, a file without PEM is invalid, each naming the path")
    func loadErrors() throws {
        #expect(throws: TLSIdentityError.unreadable("/nonexistent/cert.pem")) {
            try TLSIdentity(certificateFile: "/nonexistent/cert.pem", keyFile: "/nonexistent/key.pem")
        }
        let directory = try Fixtures.temporaryDirectory("certificates-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ThrowawayCertificates(directory: directory)
        #expect(throws: TLSIdentityError.invalid(made.caFile, "not a PEM private key")) {
            try TLSIdentity(certificateFile: made.certificateFile, keyFile: made.caFile)
        }
        #expect(throws: TLSIdentityError.self) { try ThrowawayCertificates(directory: URL(fileURLWithPath: "/proc/nope")) }
    }
}
