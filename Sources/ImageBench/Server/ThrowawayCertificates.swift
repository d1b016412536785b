import CShims
import Foundation

/// A certificate authority made for one `serve --tls` (or one test) and the server certificate it
/// signed for 127.0.0.1 and localhost, as PEM files in a directory: a client trusts `caFile`
/// (`curl --cacert`) and nothing of the machine's trust store changes. Made with libcrypto
/// (tls_identity.c says why); the CA's key is never written, so it signs nothing else.
public struct ThrowawayCertificates: Sendable {
    /// The CA's certificate: what a client is told to trust.
    public let caFile: String
    /// The server's certificate and private key (mode 0600).
    public let certificateFile: String
    public let keyFile: String

    /// Makes the directory if needed and writes `ca.pem`, `server.pem` and `server-key.pem` into
    /// it, replacing earlier ones.
    public init(directory: URL) throws(TLSIdentityError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .notMade("cannot create \(directory.path)")
        }
        caFile = directory.appendingPathComponent("ca.pem").path
        certificateFile = directory.appendingPathComponent("server.pem").path
        keyFile = directory.appendingPathComponent("server-key.pem").path
        var reason = [CChar](repeating: 0, count: 512)
        guard ib_tls_make_identity(caFile, certificateFile, keyFile, &reason, reason.count) == 0 else {
            throw .notMade(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// A fresh directory under the temporary directory, for a run that names none.
    public static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("imgbench-tls-\(UUID().uuidString.prefix(8))")
    }

    /// The server side: its certificate and key, loaded.
    public func identity() throws(TLSIdentityError) -> TLSIdentity {
        try TLSIdentity(certificateFile: certificateFile, keyFile: keyFile)
    }
}
