import NIOHTTP1

/// A request's `Range` on a served file (RFC 9110 §14): one `bytes=N-` or `bytes=N-M` range,
/// honoured unless an `If-Range` names another version of the file. What clients ask for when
/// they resume a download (`--resume`).
enum ByteRange: Equatable {
    /// No range (or one not honoured: malformed, several, a suffix, another version): 200, all of it.
    case whole
    /// 206 Partial Content: bytes `first...last` of the file.
    case part(first: Int, last: Int)
    /// 416 Range Not Satisfiable: it starts past the end.
    case unsatisfiable

    init(headers: HTTPHeaders, size: Int, etag: String) {
        self.init(range: headers["Range"].first, ifRange: headers["If-Range"].first, size: size, etag: etag)
    }

    init(range: String?, ifRange: String?, size: Int, etag: String) {
        guard let value = range else { self = .whole; return }
        // If-Range with another validator (an older ETag, or a date: ours never match one) asks
        // for the whole current file, not a piece of it.
        if let ifRange, ifRange != etag { self = .whole; return }
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { self = .whole; return }
        let bounds = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0].trimmingCharacters(in: .whitespaces)), first >= 0 else {
            self = .whole
            return
        }
        let end = bounds[1].trimmingCharacters(in: .whitespaces)
        // An end before the start makes the range invalid: ignored, not unsatisfiable.
        guard end.isEmpty || (Int(end).map { $0 >= first } ?? false) else { self = .whole; return }
        guard first < size else { self = .unsatisfiable; return }
        self = .part(first: first, last: end.isEmpty ? size - 1 : min(Int(end)!, size - 1))
    }

    /// A strong validator for a file's bytes: FNV-1a over them, with their size.
    static func etag(of bytes: some Collection<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "\"\(String(hash, radix: 16))-\(bytes.count)\""
    }
}

/// A range request the server answered: which file, from where, and whether with the part (206).
struct ServedRange: Sendable, Equatable {
    /// The first this many are kept (`ImageServer.rangeRequests`).
    static let kept = 10_000

    let path: String
    let first: Int
    let partial: Bool
}
