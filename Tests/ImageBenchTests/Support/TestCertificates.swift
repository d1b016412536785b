import Foundation

/// A throwaway certificate authority and a server certificate for 127.0.0.1 and localhost, made
/// by openssl's command-line tool in `directory`: what the HTTPS tests serve (nginx) and trust
/// (`--ca-file`). EC P-256, valid for two days.
struct TestCertificates {
    let ca: URL
    let certificate: URL
    let key: URL

    init(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        ca = directory.appendingPathComponent("ca.pem")
        certificate = directory.appendingPathComponent("server.pem")
        key = directory.appendingPathComponent("server.key")
        let caKey = directory.appendingPathComponent("ca.key"), request = directory.appendingPathComponent("server.csr")
        let extensions = directory.appendingPathComponent("server.ext")
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n".write(to: extensions, atomically: true, encoding: .utf8)
        let p256 = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try Self.openssl(["req", "-x509"] + p256 + ["-keyout", caKey.path, "-out", ca.path, "-days", "2", "-subj", "/CN=imgbench test CA",
                         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try Self.openssl(["req"] + p256 + ["-keyout", key.path, "-out", request.path, "-subj", "/CN=127.0.0.1"])
        try Self.openssl(["x509", "-req", "-in", request.path, "-CA", ca.path, "-CAkey", caKey.path, "-CAcreateserial",
                          "-out", certificate.path, "-days", "2", "-extfile", extensions.path])
    }

    /// nginx's lines for serving this certificate.
    var nginxLines: String { "ssl_certificate \(certificate.path); ssl_certificate_key \(key.path);" }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw NginxError(description: "openssl \(arguments.first ?? "") failed: \(message)") }
    }
}
