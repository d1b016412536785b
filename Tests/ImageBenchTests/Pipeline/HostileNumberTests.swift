import Foundation
import Testing
@testable import ImageBench

/// Numbers from a peer are hostile until checked: each case here trapped (SIGILL, no reports)
/// before they were.
@Suite("Hostile numbers and bodies from a peer")
struct HostileNumberTests {
    @Test("untrusted text: control characters and bidi overrides escaped, long text cut with the count of the rest")
    func untrustedText() {
        #expect(UntrustedText.line("GET /a\nFAKE-LINE\u{1B}[31m 404") == "GET /a\\x0aFAKE-LINE\\x1b[31m 404")
        #expect(UntrustedText.line("x\u{202E}y\u{85}\u{7F}") == "x\\u{202e}y\\x85\\x7f")
        #expect(UntrustedText.line(String(repeating: "é", count: 10), limit: 4) == "éééé… (12 more bytes)")
        #expect(UntrustedText.line("plain text, ünïcode ok") == "plain text, ünïcode ok")
    }

    @Test("header numbers: digits only, at most 1 TiB, or nothing; sums of sizes saturate")
    func checkedNumbers() {
        #expect(CheckedNumber.byteCount("5000") == 5000)
        #expect(CheckedNumber.byteCount("1099511627776") == CheckedNumber.maxByteCount)
        for hostile in ["9223372036854775807", "1099511627777", "-1", "+5", " 5", "5 ", "0x10", "", "99999999999999999999999"] {
            #expect(CheckedNumber.byteCount(hostile) == nil, "\(hostile)")
        }
        #expect(CheckedNumber.sum(Int.max - 1, 5) == Int.max)
        #expect(CheckedNumber.sum(2, 3) == 5)
        var state = ResumeState(from: nil)
        state.read(headerLine: "HTTP/1.1 206 Partial Content\r\n")
        state.read(headerLine: "Content-Range: bytes 100-9223372036854775807/9223372036854775807\r\n")
        state.read(headerLine: "Content-Length: 9223372036854775807\r\n")
        #expect(state.rangeStart == 100 && state.rangeEnd == nil && state.rangeTotal == nil && state.announcedLength == nil)
    }

    /// A fetch resuming 100 kept bytes of a 1,000-byte file, answered by `answer`.
    func resumed(_ answer: [UInt8]) throws -> Result<FetchResult, FetchError> {
        let server = try ScriptedServer { _, _ in answer }
        defer { server.stop() }
        let url = "\(server.baseURL)/photo.jpg", partials = PartialDownloads()
        partials.keep(url, bytes: [UInt8](repeating: 7, count: 100), validator: "\"v1\"", total: 1_000)
        // Limits far above a loopback answer's milliseconds: under ThreadSanitizer, beside the
        // test chain, the honest case once took more than 5 s (CI, 2026-11-28).
        let fetcher = CurlFetcher(limits: FetchLimits(timeoutMilliseconds: 60_000, stallMilliseconds: 30_000))
        return Result { () throws(FetchError) in try fetcher.fetch(FetchRequest(url: url, partials: partials)) }
    }

    @Test("--resume: a 206 whose range ends at 2^63 - 1 (or whose total is) is refused as not continuing the kept bytes")
    func hostileContentRange() throws {
        let body = [UInt8](repeating: 1, count: 900)
        for range in ["bytes 100-9223372036854775807/1000", "bytes 100-999/9223372036854775807", "bytes 100-18446744073709551616/1000"] {
            let result = try resumed(ScriptedServer.answer("206 Partial Content", headers: ["ETag: \"v1\"", "Content-Range: \(range)",
                                                                                          "Content-Length: 900"], body: body))
            guard case .failure(.connection(let reason, _)) = result else { Issue.record("\(range): \(result)"); continue }
            #expect(reason.contains("Content-Range"), "\(range): \(reason)")
        }
        // The honest answer still joins the kept bytes.
        let honest = try resumed(ScriptedServer.answer("206 Partial Content", headers: ["ETag: \"v1\"", "Content-Range: bytes 100-999/1000",
                                                                                       "Content-Length: 900"], body: body))
        switch honest {
        case .success(let fetched): #expect(fetched.bytes == [UInt8](repeating: 7, count: 100) + body)
        case .failure(let error): Issue.record("the honest 206 failed: \(error)")
        }
    }

    @Test("a cancelled transfer's promised size past --max-bytes is no size: nothing to sum into bytes saved")
    func hostileAnnouncedSize() {
        #expect(CurlEasy.cancelledSize(rangeTotal: nil, contentLength: 9_223_372_036_854_775_807, maxBytes: 50_000_000) == nil)
        #expect(CurlEasy.cancelledSize(rangeTotal: 1 << 40, contentLength: 900, maxBytes: 50_000_000) == nil)
        #expect(CurlEasy.cancelledSize(rangeTotal: 1_000, contentLength: 900, maxBytes: 50_000_000) == 1_000)
        #expect(CurlEasy.cancelledSize(rangeTotal: nil, contentLength: 5_000, maxBytes: 50_000_000) == 5_000)
        #expect(CurlEasy.cancelledSize(rangeTotal: nil, contentLength: -1, maxBytes: 50_000_000) == nil)
    }

    @Test("a body without Content-Length grows its buffer geometrically and never past --max-bytes")
    func unknownLengthBody() throws {
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let server = try ScriptedServer { _, _ in ScriptedServer.answer("200 OK", headers: [], body: body) }
        defer { server.stop() }
        let limit = (3 << 20) + 100_000  // Array's own doubling would pass it (2 MiB → 4 MiB)
        let fetcher = CurlFetcher(limits: FetchLimits(timeoutMilliseconds: 10_000, maxBytes: limit, stallMilliseconds: 5_000))
        // A manifest's claim of 40 MB is not taken on its word either.
        let result = try fetcher.fetch("\(server.baseURL)/a.jpg", expectedBytes: 40_000_000, token: LoadToken())
        #expect(result.bytes == body)
        // The allocator rounds a request up by a page or so; Array's doubling would be 30% past it.
        #expect(result.bytes.capacity <= limit + limit / 100, "capacity \(result.bytes.capacity) past --max-bytes \(limit)")
        // Past the limit it fails as too large, its buffer never beyond it.
        let small = CurlFetcher(limits: FetchLimits(timeoutMilliseconds: 10_000, maxBytes: 1 << 20, stallMilliseconds: 5_000))
        #expect(throws: FetchError.tooLarge(limit: 1 << 20)) { try small.fetch("\(server.baseURL)/a.jpg", expectedBytes: nil, token: LoadToken()) }
    }
}
