import ArgumentParser
import Dispatch
import Foundation
import ImageBench

extension RequestLog.Level: ExpressibleByArgument {}

/// `imgbench serve`: the embedded image server on its own, for a phone, a browser or another tool.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the generated corpus (or a folder of images) with a network profile and faults, until Ctrl-C.",
        discussion: """
        Also answers /manifest.json and /manifest.csv: every served image as an absolute URL at \
        the address and port it is reached on, ready for imgbench --source http://HOST:PORT/manifest.json.

        Without --tls it speaks HTTP/1.1 and HTTP/2 by prior knowledge (h2c, curl \
        --http2-prior-knowledge) on the same port. With --tls it serves HTTPS, HTTP/2 or HTTP/1.1 \
        as the client's ALPN asks, with a throwaway CA and a certificate for 127.0.0.1 and \
        localhost made for this serve (it prints the CA's path: curl --cacert PATH), or with \
        your own certificate and key (--tls-cert, --tls-key).
        """)

    @Option(help: "Address to bind; 127.0.0.1 unless told otherwise (0.0.0.0 to reach it from a phone).")
    var host = "127.0.0.1"

    @Option(help: "Port (0 picks a free one).")
    var port = 8080

    @Option(help: "Network profile: loopback, wifi (default), lte, 3g, edge, or latency=80ms,jitter=20ms,bandwidth=2MB/s.")
    var network = "wifi"

    @Option(help: "Faults to inject, e.g. 'error=2%,reset=1%,stall=1%,truncate=1%' (deterministic by seed).")
    var faults: String?

    @Option(help: "Serve this folder of images instead of the generated corpus.")
    var corpus: String?

    @Option(help: "Generated images (without --corpus) \(FlagRanges.help(FlagRanges.embeddedImages)).")
    var images = 1_000

    @Flag(name: .customLong("no-corpus-cache"), help: "Generate the images afresh instead of loading them from the corpus cache (~/.cache/imgbench).")
    var noCorpusCache = false

    @Option(help: "Seed for the generated images, the per-URL delays and the faults.")
    var seed: UInt64 = 1

    @Option(name: .customLong("log"), help: "What to log on stdout, one line per request: none, errors (status >= 400 and faults; the default), requests (buffered, written every 100 ms).")
    var logLevel = RequestLog.Level.errors

    @Option(name: .customLong("request-timeout"), help: "Seconds a connection may idle or take to send a request before it is closed \(FlagRanges.help(FlagRanges.requestTimeout)).")
    var requestTimeout = ConnectionLimits.standard.requestTimeout

    @Option(name: .customLong("max-connections"), help: "Open connections at most; beyond it the longest-idle one is closed \(FlagRanges.help(FlagRanges.maxConnections)); default: the descriptor limit less 64.")
    var maxConnections: Int?

    @Flag(help: "Serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with a throwaway CA and certificate for 127.0.0.1 and localhost.")
    var tls = false

    @Option(name: .customLong("tls-dir"), help: "Where --tls writes ca.pem, server.pem and server-key.pem (default: a new directory under the temporary directory, removed when serve stops).")
    var tlsDirectory: String?

    @Option(name: .customLong("tls-cert"), help: "Serve HTTPS with this PEM certificate chain (leaf first) instead of a throwaway one; needs --tls-key.")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    func validate() throws {
        _ = try profile()
        _ = try serverFaults()
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535 (got \(port))") }
        do {
            try FlagRanges.check(images, in: FlagRanges.embeddedImages, "--images")
            try limits.validate()
        } catch {
            throw ValidationError(error.description)
        }
        _ = try tlsSource()
        if let corpus {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: corpus, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--corpus: \(corpus) is not a directory")
            }
        }
    }

    func run() throws {
        let files: ServedFiles
        if let corpus {
            files = try CommandFailure.catching { try ServedFiles(directory: URL(fileURLWithPath: corpus)) }
        } else {
            FileHandle.standardError.write(Data("imgbench serve: generating \(images) images (seed \(seed))\n".utf8))
            files = ServedFiles(corpus: ImageCorpus.generate(count: images, seed: seed, cache: noCorpusCache ? nil : .standard()))
        }
        let log = RequestLog(level: logLevel)
        let (shaping, faults) = (try profile(), try serverFaults())
        let tlsSource = try tlsSource()
        let tls = try tlsSource?.prepared()
        let server = try CommandFailure.catching("cannot listen on \(host):\(port)") {
            try ImageServer(files: files, profile: shaping, seed: seed, faults: faults, host: host, port: port, threads: 2,
                            limits: limits, tls: tls?.identity, log: log.recorder)
        }
        FileHandle.standardError.write(Data("""
            imgbench serve: \(files.count) files at \(server.baseURL)/ (network \(server.profile)\(faults.isEmpty ? "" : ", faults \(faults)")); \
            \(tls?.words ?? "HTTP/1.1 and h2c"); \
            manifest at \(server.baseURL)/manifest.json; at most \(server.connectionCounts.cap) connections; Ctrl-C stops

            """.utf8))
        // Ctrl-C or SIGTERM: stop accepting, close connections, exit 0.
        let stop = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        stop.wait()
        server.shutdown()
        log.close()
        // A throwaway CA in a directory of our own choosing is of no use once the server is gone.
        if case .throwaway(let directory)? = tlsSource, tlsDirectory == nil { try? FileManager.default.removeItem(at: directory) }
        FileHandle.standardError.write(Data("imgbench serve: stopped after \(server.requestCount) requests\n".utf8))
        withExtendedLifetime(sources) {}
    }

    /// What --tls, --tls-dir, --tls-cert and --tls-key ask for: nothing (clear text), a throwaway
    /// CA and certificate, or the user's own, checked readable and parsable (usage errors, 64).
    private func tlsSource() throws -> ServedTLS? {
        switch (tlsCertificate, tlsKey) {
        case (nil, nil):
            guard tls || tlsDirectory != nil else { return nil }
            return .throwaway(directory: tlsDirectory.map { URL(fileURLWithPath: $0) } ?? ThrowawayCertificates.temporaryDirectory())
        case (let certificate?, let key?):
            guard tlsDirectory == nil else { throw ValidationError("--tls-dir is for a throwaway certificate; --tls-cert and --tls-key name your own") }
            do {
                return .own(try TLSIdentity(certificateFile: certificate, keyFile: key), certificateFile: certificate)
            } catch {
                throw ValidationError("--tls-cert/--tls-key: \(error)")
            }
        case (_?, nil): throw ValidationError("--tls-cert needs --tls-key")
        case (nil, _?): throw ValidationError("--tls-key needs --tls-cert")
        }
    }

    private var limits: ConnectionLimits {
        var limits = ConnectionLimits(requestTimeout: requestTimeout, maxConnections: maxConnections)
        limits.returnsMemoryWhenIdle = true  // a standing server, not a measurement
        return limits
    }

    private func profile() throws -> NetworkProfile {
        do {
            return try NetworkProfile(parsing: network)
        } catch {
            throw ValidationError("--network: \(error)")
        }
    }

    private func serverFaults() throws -> ServerFaults {
        guard let faults else { return .none }
        do {
            return try ServerFaults(parsing: faults)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// The certificate `serve` presents over TLS.
enum ServedTLS {
    /// Made now in this directory (a failure to make or write it: exit 2).
    case throwaway(directory: URL)
    case own(TLSIdentity, certificateFile: String)

    /// The identity to serve, and what the startup line says of it: the CA a client must trust.
    func prepared() throws -> (identity: TLSIdentity, words: String) {
        switch self {
        case .throwaway(let directory):
            let certificates = try CommandFailure.catching { try ThrowawayCertificates(directory: directory) }
            return (try CommandFailure.catching { try certificates.identity() },
                    "HTTPS (h2, http/1.1), trust the CA at \(certificates.caFile) (curl --cacert)")
        case .own(let identity, let certificateFile):
            return (identity, "HTTPS (h2, http/1.1) with \(certificateFile)")
        }
    }
}
