import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// HTTPS and HTTP/2 against a real third-party server: nginx with `listen … ssl http2`, serving
    /// `imgbench corpus` output with a certificate the test made (openssl) and the run trusts
    /// (`--ca-file`).
    @Suite("HTTPS and HTTP/2 against nginx", .serialized)
    struct ProtocolRunTests {
        struct Served {
            let root: URL
            let certificates: TestCertificates
            let nginx: Nginx
            let log: URL
            var template: String { "https://127.0.0.1:\(nginx.port)/img/{id}.jpg" }

            /// `limitRate`: nginx's bytes per second per request ("" for none), so transfers are
            /// still under way when a fling takes their rows off screen.
            init(_ name: String, limitRate: String = "") throws {
                root = try Fixtures.temporaryDirectory(name)
                certificates = try TestCertificates(in: root.appendingPathComponent("tls"))
                let port = try Nginx.freePort()
                let corpus = root.appendingPathComponent("corpus")
                let written = try Fixtures.imgbench(["corpus", "--out", corpus.path, "--images", "20", "--jpeg-only",
                                                     "--base-url", "https://127.0.0.1:\(port)"])
                guard written.status == 0 else { throw NginxError(description: written.output) }
                log = root.appendingPathComponent("access.log")
                nginx = try Nginx(root: corpus, port: port, listen: "ssl http2",
                                  extra: certificates.nginxLines + (limitRate.isEmpty ? "" : " limit_rate \(limitRate);"),
                                  accessLog: log, logsConnections: true)
            }

            /// Each request nginx logged: its connection's serial number and protocol.
            func logged() throws -> [(connection: String, protocol: String)] {
                try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { line in
                    let fields = line.split(separator: " ")
                    return (String(fields[0]), fields.count > 1 ? String(fields[1]) : "")
                }
            }

            func remove() {
                nginx.stop()
                try? FileManager.default.removeItem(at: root)
            }
        }

        static func requests(_ out: URL) throws -> [[String: String]] {
            let rows = CSVTable.parse(try String(contentsOf: out.appendingPathComponent("requests.csv"), encoding: .utf8))
            return rows.dropFirst().filter { $0.count == rows[0].count }.map { Dictionary(uniqueKeysWithValues: zip(rows[0], $0)) }
        }

        @Test("--http 2 over HTTPS: every request spoke HTTP/2, nginx saw one connection per user, the handshakes are timed; without --ca-file the certificate is refused")
        func http2OverTLS() async throws {
            try await onOwnThread {
                let served = try Served("h2-nginx")
                defer { served.remove() }
                let out = served.root.appendingPathComponent("results")
                let run = try Fixtures.imgbench(["--source", served.template, "--images", "20", "--ca-file", served.certificates.ca.path,
                                                 "--http", "2", "--clients", "3", "--rows", "60", "--no-decode", "--cancel", "none",
                                                 "--out", out.path])
                #expect(run.status == 0, "\(run.output)")
                #expect(run.output.contains("http_req_tls_handshaking"), "\(run.output)")
                let summary = try #require(try ResultsDirectory(path: out.path).runs.first)
                #expect(summary.text("http") == "2" && summary.text("transport") == "multi")
                let opened = try #require(summary.value("connections_opened"))
                #expect(opened >= 1 && opened <= 3, "\(opened) connections for 3 users")
                #expect((summary.value("tls_handshake_p50_ms") ?? 0) > 0)
                let fetched = try Self.requests(out).filter { $0["source"] == "network" }
                #expect(fetched.count >= 20 && fetched.allSatisfy { $0["protocol"] == "2" }, "\(fetched.map { $0["protocol"] ?? "?" })")
                #expect(fetched.filter { $0["new_connection"] == "1" }.count == Int(opened))
                #expect(fetched.filter { $0["new_connection"] == "1" }.allSatisfy { Double($0["tls_ms"] ?? "") ?? 0 > 0 })
                // The run's requests, and before them the check that the source answers, on a
                // connection of its own.
                let logged = try served.logged()
                #expect(logged.count == fetched.count + 1 && logged.allSatisfy { $0.protocol == "HTTP/2.0" }, "\(logged)")
                #expect(Set(logged.map(\.connection)).count == Int(opened) + 1)
                // The system's authorities do not know this one: the source is refused, in one line.
                let untrusted = try Fixtures.imgbench(["--source", served.template, "--images", "20", "--http", "2", "--rows", "20",
                                                       "--no-decode", "--out", served.root.appendingPathComponent("untrusted").path])
                #expect(untrusted.status == 2 && untrusted.output.lowercased().contains("certificate"), "\(untrusted.output)")
            }
        }

        @Test("--tls --http 2 on the embedded server: a CA made for the run, trusted by its client alone; every request spoke HTTP/2 over TLS, one connection per user")
        func embeddedOverTLS() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("h2-embedded")
                defer { try? FileManager.default.removeItem(at: root) }
                let out = root.appendingPathComponent("results")
                let run = try Fixtures.imgbench(["--tls", "--http", "2", "--clients", "3", "--rows", "60", "--no-decode", "--cancel", "none",
                                                 "--network", "loopback", "--out", out.path])
                #expect(run.status == 0, "\(run.output)")
                #expect(run.output.contains("https://127.0.0.1:"), "\(run.output)")
                let summary = try #require(try ResultsDirectory(path: out.path).runs.first)
                let opened = try #require(summary.value("connections_opened"))
                #expect(opened >= 1 && opened <= 3 && (summary.value("tls_handshake_p50_ms") ?? 0) > 0, "\(opened) connections")
                let fetched = try Self.requests(out).filter { $0["source"] == "network" }
                #expect(fetched.count >= 20 && fetched.allSatisfy { $0["protocol"] == "2" }, "\(fetched.map { $0["protocol"] ?? "?" })")
                // The recorded plan says --tls, and no path of the run's temporary CA.
                let json = try String(contentsOf: out.appendingPathComponent("summary.json"), encoding: .utf8)
                #expect(json.contains("\"tls\"") && !json.contains("imgbench-tls-"))
            }
        }

        @Test("--tls --http 2 on the embedded server, a 3g fling with --cancel offscreen: hundreds of streams reset, one connection (the server's rapid-reset guard is above a fling's rate)")
        func embeddedKeepsConnectionThroughResets() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("h2-resets")
                defer { try? FileManager.default.removeItem(at: root) }
                let out = root.appendingPathComponent("results")
                let run = try Fixtures.imgbench(["--tls", "--http", "2", "--network", "3g", "--rows", "800", "--cancel", "offscreen",
                                                 "--strategies", "events", "--concurrency", "5", "--out", out.path])
                #expect(run.status == 0, "\(run.output)")
                let summary = try #require(try ResultsDirectory(path: out.path).runs.first)
                let cancelled = try #require(summary.value("cancelled_inflight"))
                // NIO's default guard closed the connection at the 200th reset in 30 s.
                #expect(cancelled > 200 && summary.value("connections_opened") == 1,
                        "\(summary.text("connections_opened") ?? "?") connections, \(cancelled) cancelled in flight")
            }
        }

        @Test("a fling with --cancel offscreen: over HTTP/2 the user keeps one connection however many transfers it cancels; over HTTP/1.1 each cancel costs one")
        func cancelsAndConnections() async throws {
            try await onOwnThread {
                let served = try Served("h2-cancel", limitRate: "40k")
                defer { served.remove() }
                let out = served.root.appendingPathComponent("results")
                let run = try Fixtures.imgbench(["--source", served.template, "--images", "20", "--ca-file", served.certificates.ca.path,
                                                 "--http", "1.1,2", "--rows", "150", "--cancel", "offscreen", "--strategies", "events",
                                                 "--out", out.path])
                #expect(run.status == 0, "\(run.output)")
                let runs = try ResultsDirectory(path: out.path).runs
                let http1 = try #require(runs.first { $0.text("http") == "1.1" }), http2 = try #require(runs.first { $0.text("http") == "2" })
                let cancelled1 = try #require(http1.value("cancelled_inflight")), cancelled2 = try #require(http2.value("cancelled_inflight"))
                #expect(cancelled2 > 0 && http2.value("connections_opened") == 1, "HTTP/2: \(http2.text("connections_opened") ?? "?") connections, \(cancelled2) cancelled")
                #expect(cancelled1 > 0 && (http1.value("connections_opened") ?? 0) >= cancelled1, "HTTP/1.1: \(http1.text("connections_opened") ?? "?") connections, \(cancelled1) cancelled")
                let requests = try Self.requests(out).filter { $0["source"] == "network" && !($0["protocol"] ?? "").isEmpty }
                #expect(Set(requests.map { "\($0["http"] ?? "")→\($0["protocol"] ?? "")" }) == ["1.1→1.1", "2→2"])
            }
        }
    }
}
