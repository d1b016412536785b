import Foundation

/// `--tls`: the certificate authority and server certificate one run's embedded server presents,
/// made for it in a directory of its own under the temporary directory (`ThrowawayCertificates`)
/// and removed when the run ends. The run's client trusts `caFile` alone.
struct RunCertificates: Sendable {
    let directory: URL
    let caFile: String
    let identity: TLSIdentity

    init() throws(BenchmarkError) {
        directory = ThrowawayCertificates.temporaryDirectory()
        do {
            let made = try ThrowawayCertificates(directory: directory)
            (caFile, identity) = (made.caFile, try made.identity())
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchmarkError(description: "--tls: \(error)")
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
