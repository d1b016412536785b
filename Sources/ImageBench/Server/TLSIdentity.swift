import Foundation
import NIOSSL

/// The certificate chain and private key the embedded server presents over TLS.
public struct TLSIdentity: Sendable {
    let certificateChain: [NIOSSLCertificate]
    let privateKey: NIOSSLPrivateKey

    /// A chain (leaf first) and key already loaded, e.g. by a test or an embedding program.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// Reads a PEM certificate chain (leaf first) and its PEM private key, as `serve --tls-cert
    /// --tls-key` name them. Errors name the file and what is wrong with it.
    public init(certificateFile: String, keyFile: String) throws(TLSIdentityError) {
        for path in [certificateFile, keyFile] where !FileManager.default.isReadableFile(atPath: path) {
            throw .unreadable(path)
        }
        do {
            certificateChain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw .invalid(certificateFile, "not a PEM certificate")
        }
        // NIOSSL returns an empty chain for a readable file with no certificate in it.
        guard !certificateChain.isEmpty else { throw .invalid(certificateFile, "no PEM certificate in it") }
        do {
            privateKey = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw .invalid(keyFile, "not a PEM private key")
        }
    }
}

/// Why a TLS identity could not be loaded or made; each names the file.
public enum TLSIdentityError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case invalid(String, String)
    case notMade(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read \(path)"
        case .invalid(let path, let reason): "\(path): \(reason)"
        case .notMade(let reason): "cannot make a certificate: \(reason)"
        }
    }
}
