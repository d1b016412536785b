import CCurl
import Testing
@testable import ImageBench

@Suite("URLs parsed once for curl")
struct ParsedURLsTests {
    /// One part of a parsed handle, as curl reads it back.
    static func part(_ handle: OpaquePointer, _ part: CURLUPart) -> String? {
        var text: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, part, &text, 0) == CURLUE_OK, let text else { return nil }
        defer { curl_free(text) }
        return String(cString: text)
    }

    @Test("a URL is parsed once and its handle handed out again; one curl cannot parse is left to go as text")
    func parsesOnce() throws {
        let urls = ParsedURLs()
        let first = try #require(urls.handle(for: "http://127.0.0.1:8080/img/7.jpg?size=2"))
        #expect(urls.handle(for: "http://127.0.0.1:8080/img/7.jpg?size=2") == first)
        #expect(Self.part(first, CURLUPART_HOST) == "127.0.0.1")
        #expect(Self.part(first, CURLUPART_PORT) == "8080")
        #expect(Self.part(first, CURLUPART_PATH) == "/img/7.jpg")
        #expect(Self.part(first, CURLUPART_QUERY) == "size=2")
        let other = try #require(urls.handle(for: "http://127.0.0.1:8080/img/8.jpg"))
        #expect(other != first)
        #expect(urls.handle(for: "http://[::1") == nil)
        #expect(urls.handle(for: "") == nil)
        #expect(urls.count == 2)
        // As CURLOPT_URL would: no scheme is guessed as http, an unsupported one parses (and the
        // transfer then refuses it by its protocol).
        #expect(urls.handle(for: "example.com/a.jpg").map { Self.part($0, CURLUPART_SCHEME) } == "http")
        #expect(urls.handle(for: "ftp://127.0.0.1/a.jpg").map { Self.part($0, CURLUPART_SCHEME) } == "ftp")
    }

    @Test("past its capacity, new URLs go as text and the kept ones are still handed out")
    func capacity() throws {
        let urls = ParsedURLs(capacity: 2)
        let first = try #require(urls.handle(for: "http://a.test/1.jpg"))
        #expect(urls.handle(for: "http://a.test/2.jpg") != nil)
        #expect(urls.handle(for: "http://a.test/3.jpg") == nil)
        #expect(urls.handle(for: "http://a.test/1.jpg") == first)
        #expect(urls.count == 2)
    }
}
