import CCurl

/// URLs parsed once into curl URL handles (`CURLU`), handed to transfers with `CURLOPT_CURLU`
/// rather than as text with `CURLOPT_URL`. curl 7.88 parses a text URL afresh for every request,
/// about 13,000 instructions of a load test's 70,000 per request in curl (callgrind, curl's floor
/// of README's user-cost table: 69,991 a request with the text, 57,136 with a parsed handle);
/// a feed asks for the same few thousand URLs over and over.
///
/// Not thread-safe: one `CurlLoop` owns it and uses it on its thread only. curl reads a handle
/// and copies what it needs, so many transfers may use one at once; the handles live until the
/// loop is gone, after every transfer that used them.
final class ParsedURLs {
    /// By the URL's key, whose hash was worked out once with its image (`ImageReference.urlKey`):
    /// hashing the text at every request cost more than the rest of the lookup.
    private var handles: [CacheKey: OpaquePointer] = [:]
    /// At most this many distinct URLs are kept (about 200 bytes each); later ones go as text.
    let capacity: Int

    init(capacity: Int = 65_536) {
        self.capacity = capacity
    }

    deinit {
        for handle in handles.values { curl_url_cleanup(handle) }
    }

    var count: Int { handles.count }

    /// The parsed handle for `url`, or nil: a URL curl cannot parse goes as text, so that curl
    /// reports it as it always has, and so does one past `capacity`.
    func handle(for url: CacheKey) -> OpaquePointer? {
        if let handle = handles[url] { return handle }
        guard handles.count < capacity, let handle = curl_url() else { return nil }
        // The flags curl itself parses CURLOPT_URL with (lib/url.c, parseurlandfillconn): a URL
        // without a scheme is guessed as it would be, and an unsupported scheme parses here so
        // that the transfer refuses it with curl's usual error.
        let flags = UInt32(CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)
        guard curl_url_set(handle, CURLUPART_URL, url.text, flags) == CURLUE_OK else {
            curl_url_cleanup(handle)
            return nil
        }
        handles[url] = handle
        return handle
    }
}
