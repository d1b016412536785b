import Foundation
import Testing
@testable import ImageBench

/// `--http` and `--ca-file` as the plan reads them: the version each cell asks for, the transport
/// HTTP/2 needs, and the files and values refused in one line.
@Suite("--http and --ca-file")
struct HTTPVersionFlagTests {
    @Test("--http 2 picks the multi transport when none is given, refuses a blocking one, and a list is a dimension of the matrix")
    func versions() throws {
        let plain = try RunOptions(parsing: ["--rows", "100"]).plan()
        #expect(plain.settings.fetchLimits.httpVersion == .http1_1 && plain.settings.transport == .blocking)
        let two = try RunOptions(parsing: ["--http", "2"]).plan()
        #expect(two.settings.fetchLimits.httpVersion == .http2 && two.settings.transport == .multi)
        let both = try RunOptions(parsing: ["--http", "1.1,2", "--strategies", "threads"]).plan()
        #expect(both.variations.map(\.values) == [["1.1", "2"]] && both.settings.transport == .multi)
        #expect(both.cells.map(\.name).contains { $0.contains("http=2") }, "\(both.cells.map(\.name))")
        #expect(RunFlagEdgeTests.refusal(["--http", "2", "--transport", "blocking"])
                == "--http 2 needs --transport multi (a blocking transport's workers each hold an easy handle, and those cannot share a connection)")
        #expect(RunFlagEdgeTests.refusal(["--http", "3"]) == "--http: unknown version '3' (valid: 1.1, 2)")
        #expect(RunFlagEdgeTests.refusal(["--http", "2.0"]) == "accepted")
    }

    @Test("--ca-file must be readable; the plan keeps its path and says it again in the run's command")
    func caFile() throws {
        #expect(RunFlagEdgeTests.refusal(["--ca-file", "/nonexistent/ca.pem"]) == "--ca-file: cannot read '/nonexistent/ca.pem'")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imgbench-ca-\(UUID().uuidString).pem")
        try "-----BEGIN CERTIFICATE-----\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let plan = try RunOptions(parsing: ["--ca-file", file.path, "--http", "2"]).plan()
        #expect(plan.settings.fetchLimits.caFile == file.path)
        let command = RunArguments.shellCommand(plan)
        #expect(command.contains("--ca-file \(file.path)") && command.contains("--http 2"), "\(command)")
    }

    @Test("a request's connection goes into requests.csv and comes back from it; hostile times read as none")
    func connectionColumns() throws {
        var record = RequestRecord(id: 0, row: 3, imageID: 7, url: "https://127.0.0.1/img/7.jpg", visibleFrame: 2, requestedAt: 0, source: .network)
        record.connection = ConnectionFacts(protocolVersion: "2", opened: true, connect: 1_234_000, tlsHandshake: 5_678_000)
        #expect(record.connection == ConnectionFacts(protocolVersion: "2", opened: true, connect: 1_234_000, tlsHandshake: 5_678_000))
        var row = ["request": "0", "row": "3", "image": "7", "visible_frame": "2", "source": "network", "outcome": "displayed",
                   "protocol": "2", "new_connection": "1", "connect_ms": "1.234", "tls_ms": "5.678"]
        #expect(RequestRecord(row: row)?.connection == record.connection)
        row["tls_ms"] = "inf"
        row["requested_ms"] = "1e300"
        let hostile = try #require(RequestRecord(row: row))
        #expect(hostile.connection?.tlsHandshake == 0 && hostile.requestedAt == 0)
        #expect(RequestRecord.nanoseconds("-1") == nil && RequestRecord.nanoseconds("nan") == nil && RequestRecord.nanoseconds("2.5") == 2_500_000)
    }
}
