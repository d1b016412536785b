import Foundation
import NIOCore

/// `/manifest.json` and `/manifest.csv` of the embedded server: every served image as an absolute
/// URL, in the formats `--source` reads. Always generated (a served folder's own manifests, written
/// for another address, are shadowed); images only (a folder's other files are not a feed).
enum ServedManifest {
    enum Kind {
        case json, csv

        init?(path: String) {
            switch path {
            case "/manifest.json": self = .json
            case "/manifest.csv": self = .csv
            default: return nil
            }
        }

        var contentType: String { self == .json ? "application/json" : "text/csv" }
    }

    /// `http://ADDRESS:PORT` (or `https://`) as the connection reached it: the port always, IPv6
    /// in brackets, and never the request's Host header, which the client writes.
    static func base(of channel: any Channel, scheme: String = "http") -> String {
        guard let address = channel.localAddress, let ip = address.ipAddress, let port = address.port else {
            return "\(scheme)://127.0.0.1"
        }
        if case .v6 = address { return "\(scheme)://[\(ip)]:\(port)" }
        return "\(scheme)://\(ip):\(port)"
    }

    static func body(_ kind: Kind, files: ServedFiles, base: String) -> [UInt8] {
        // Paths are percent-encoded (a space, a quote or a backslash in a file name stays one
        // path segment, and the server decodes it back); the JSON encoder escapes the rest.
        let entries = files.images.map { path, bytes in
            (url: base + (path.addingPercentEncoding(withAllowedCharacters: pathCharacters) ?? path), bytes: bytes)
        }
        switch kind {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(entries.map { Entry(url: $0.url, bytes: $0.bytes) })) ?? Data("[]".utf8)
            return Array(data) + [UInt8(ascii: "\n")]
        case .csv:
            var table = CSVTable(header: ["url", "bytes"])
            for entry in entries { table.append([entry.url, String(entry.bytes)]) }
            return Array(table.rendered.utf8)
        }
    }

    private struct Entry: Encodable {
        let url: String
        let bytes: Int
    }

    /// RFC 3986 path characters, less the ones a manifest reader or a shell may take for something else.
    private static let pathCharacters: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "\"\\;=,'")
        return allowed
    }()
}
