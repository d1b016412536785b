/// `--resume`: what cancelled transfers had received, kept so that when the image is wanted again
/// only the rest is asked for, with a `Range` request validated by `If-Range` (the segmented
/// download of the seed article: URLSession's resume data, by hand). A server that ignores the
/// range answers 200 with the whole body, which is used and counted.
///
/// Held in memory per simulated user, bounded: the oldest entries go first.
final class PartialDownloads: Sendable {
    /// What one cancelled transfer left: its body so far and the validator it came with.
    struct Entry: Sendable, Equatable {
        let bytes: [UInt8]
        /// The response's ETag: what If-Range sends back.
        let validator: String
        /// The whole body's size, as the response announced it.
        let total: Int
    }

    /// 32 MB: a few hundred cancelled photos, far more than a feed leaves behind at once.
    static let defaultLimitBytes = 32_000_000

    private let state = Locked<(entries: [String: Entry], order: [String], bytes: Int)>(([:], [], 0))
    private let limitBytes: Int

    init(limitBytes: Int = PartialDownloads.defaultLimitBytes) {
        self.limitBytes = limitBytes
    }

    /// Keeps what a cancelled transfer of `url` received; nothing without a validator (the rest
    /// could not be asked for safely), nothing empty or already whole.
    func keep(_ url: String, bytes: [UInt8], validator: String?, total: Int?) {
        guard let validator, let total, !bytes.isEmpty, bytes.count < total, bytes.count <= limitBytes else { return }
        state.withLockedValue { state in
            if let old = state.entries.removeValue(forKey: url) {
                state.bytes -= old.bytes.count
                state.order.removeAll { $0 == url }
            }
            state.entries[url] = Entry(bytes: bytes, validator: validator, total: total)
            state.order.append(url)
            state.bytes += bytes.count
            while state.bytes > limitBytes, let oldest = state.order.first {
                state.order.removeFirst()
                state.bytes -= state.entries.removeValue(forKey: oldest)?.bytes.count ?? 0
            }
        }
    }

    /// The entry for `url`, removed: a transfer resumes it once (and keeps its own if cancelled again).
    func take(_ url: String) -> Entry? {
        state.withLockedValue { state in
            guard let entry = state.entries.removeValue(forKey: url) else { return nil }
            state.order.removeAll { $0 == url }
            state.bytes -= entry.bytes.count
            return entry
        }
    }

    var count: Int { state.withLockedValue { $0.entries.count } }
}

/// A transfer's side of resuming: what it started from and what the response said.
struct ResumeState {
    /// The entry it asked for the rest of (nil: a whole download).
    var from: PartialDownloads.Entry?
    /// The last response's status, ETag and Content-Range, from its headers.
    var status = 0
    var etag: String?
    var rangeStart: Int?, rangeEnd: Int?, rangeTotal: Int?
    var announcedLength: Int?
    /// The server answered a range request with the whole body (200): counted, and used.
    var refused = false
    /// A 206 whose range does not start where the kept bytes end: nothing of it can be used.
    var mismatched = false

    /// Only an ETag: If-Range with a date is allowed only for a strong one (RFC 9110 §13.1.5),
    /// which a Last-Modified a second apart from a change is not.
    var validator: String? { etag }

    /// Reads one header line of the response (a status line starts a new response).
    mutating func read(headerLine line: String) {
        if line.hasPrefix("HTTP/") {
            status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            (etag, rangeStart, rangeEnd, rangeTotal, announcedLength) = (nil, nil, nil, nil, nil)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "etag": etag = value
        // Every number is checked (digits only, at most CheckedNumber.maxByteCount) before any
        // arithmetic: a range ending at 2^63 - 1 must be refused, not overflow `end + 1`.
        case "content-length": announcedLength = CheckedNumber.byteCount(value)
        case "content-range":
            // "bytes 1000-4999/5000"
            guard let spec = value.split(separator: " ").dropFirst().first else { break }
            let parts = spec.split(separator: "/", maxSplits: 1)
            let bounds = parts.first?.split(separator: "-", maxSplits: 1) ?? []
            rangeStart = bounds.first.flatMap { CheckedNumber.byteCount($0) }
            rangeEnd = bounds.count == 2 ? CheckedNumber.byteCount(bounds[1]) : nil
            rangeTotal = parts.count == 2 ? CheckedNumber.byteCount(parts[1]) : nil
        default: break
        }
    }

    /// The whole body's size as this response announces it (a 206's Content-Range has it).
    var total: Int? { status == 206 ? rangeTotal : announcedLength }
}
