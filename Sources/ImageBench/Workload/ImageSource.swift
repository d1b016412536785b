import Foundation

/// Where the feed's images come from (`--source`).
public enum ImageSource: Sendable, Equatable {
    /// The generated corpus on the embedded server, shaped by the network profile (the default).
    case embedded
    /// A URL template: `{id}` is the image (images repeat down the feed with the usual skew),
    /// `{row}` the row (every row its own image); `{ext}` the file extension of each of
    /// `--formats` (`imgbench corpus --formats` writes `img/{id}.{ext}`).
    case template(String)
    /// The images a manifest lists (a file, or a URL fetched before the run); row i shows entry i
    /// unless `--feed zipf`.
    case manifest(path: String, entries: [ManifestEntry])
    /// A URL that answers with a manifest (`imgbench serve`'s `/manifest.json`, a CDN's listing):
    /// fetched when the benchmark prepares, then a `.manifest`.
    case manifestURL(String)

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// `--source VALUE`: a URL template (with `{id}` or `{row}`), a manifest's URL (without them),
    /// or a manifest file (.json, .csv, .plist).
    public init(parsing value: String) throws(ParseError) {
        if value.contains("://") {
            guard value.contains("{id}") || value.contains("{row}") else {
                guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                    throw ParseError(description: "--source '\(value)': not an http(s) URL (a manifest's, or a template with {id} or {row})")
                }
                self = .manifestURL(value)
                return
            }
            let example = value.replacingOccurrences(of: "{id}", with: "0").replacingOccurrences(of: "{row}", with: "0")
                .replacingOccurrences(of: "{ext}", with: "jpg")
            guard let url = URL(string: example),
                  ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ParseError(description: "--source '\(value)': not an http(s) URL template")
            }
            self = .template(value)
            return
        }
        guard let data = FileManager.default.contents(atPath: value) else {
            throw ParseError(description: "--source '\(value)': no such manifest file (or give a URL template with {id})")
        }
        do {
            self = .manifest(path: value, entries: try Manifest.parse(data, name: value))
        } catch {
            throw ParseError(description: "--source \(error.description)")
        }
    }

    public var description: String {
        switch self {
        case .embedded: "the embedded server"
        case .template(let template): template
        case .manifest(let path, let entries): "\(path) (\(entries.count) URLs)"
        case .manifestURL(let url): "the manifest at \(url)"
        }
    }
}

/// One image a manifest lists.
public struct ManifestEntry: Sendable, Equatable, Codable {
    public let url: String
    /// The body size, when the manifest gives it (used for the savings of cancelled loads).
    public let bytes: Int?

    public init(url: String, bytes: Int? = nil) {
        self.url = url
        self.bytes = bytes
    }
}

/// Manifest files: a JSON array of URLs or of objects with `url` (and optional `bytes` or
/// `size`); a CSV file with a `url` column (and optional `bytes`/`size`); or a property list
/// array of URL strings or dictionaries, like the classic apps.plist. Errors name the file and
/// the line.
public enum Manifest {
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    public static func parse(_ data: Data, name: String) throws(ParseError) -> [ManifestEntry] {
        let text = String(decoding: data, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        let entries: [ManifestEntry]
        if name.lowercased().hasSuffix(".plist") || trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<plist") || data.starts(with: Array("bplist".utf8)) {
            entries = try plist(data, name: name)
        } else if name.lowercased().hasSuffix(".json") || trimmed.hasPrefix("[") {
            entries = try json(data, text: text, name: name)
        } else {
            entries = try csv(text, name: name)
        }
        guard !entries.isEmpty else { throw ParseError(description: "\(name): the manifest lists no URLs") }
        return entries
    }

    static func json(_ data: Data, text: String, name: String) throws(ParseError) -> [ManifestEntry] {
        let document: Any
        do {
            document = try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            // Foundation names a character offset; people and editors want a line.
            var place = name
            if let range = detail.range(of: #"character \d+"#, options: .regularExpression),
               let offset = Int(detail[range].dropFirst("character ".count)) {
                place += ":\(data.prefix(offset).count { $0 == UInt8(ascii: "\n") } + 1)"
            }
            throw ParseError(description: "\(place): not valid JSON: \(detail)")
        }
        guard let array = document as? [Any] else { throw ParseError(description: "\(name):1: expected a JSON array of URLs") }
        // The line is looked for only when an element is wrong: searching the text for every
        // element made 100,000 entries take minutes.
        return try array.enumerated().map { index, element throws(ParseError) in
            try entry(element, place: line(of: element, in: text).map { "\(name):\($0)" } ?? "\(name): element \(index + 1)")
        }
    }

    static func plist(_ data: Data, name: String) throws(ParseError) -> [ManifestEntry] {
        guard let array = (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [Any] else {
            throw ParseError(description: "\(name): not a property list array")
        }
        let text = String(decoding: data, as: UTF8.self)
        return try array.enumerated().map { index, element throws(ParseError) in
            try entry(element, place: line(of: element, in: text).map { "\(name):\($0)" } ?? "\(name): element \(index + 1)")
        }
    }

    static func csv(_ text: String, name: String) throws(ParseError) -> [ManifestEntry] {
        // "\r\n" is one Character in Swift, and a newline: this splits LF and CRLF files alike.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard let headerLine = lines.first, !headerLine.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ParseError(description: "\(name):1: expected a CSV header with a url column")
        }
        let header = CSVTable.parse(String(headerLine)).first?.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? []
        guard let urlColumn = header.firstIndex(of: "url") else {
            // The header's words are not quoted: a file given by mistake (--source /etc/shadow) must
            // not have its first line printed.
            throw ParseError(description: "\(name):1: the CSV header has no url column (\(header.count) columns; is this a manifest?)")
        }
        let sizeColumn = header.firstIndex(of: "bytes") ?? header.firstIndex(of: "size")
        var entries: [ManifestEntry] = []
        for (index, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let place = "\(name):\(index + 1)"
            let fields = CSVTable.parse(String(line)).first ?? []
            guard fields.count == header.count else {
                throw ParseError(description: "\(place): \(fields.count) fields where the header has \(header.count)")
            }
            var bytes: Int?
            if let sizeColumn, !fields[sizeColumn].isEmpty {
                guard let value = CheckedNumber.byteCount(fields[sizeColumn].trimmingCharacters(in: .whitespaces)) else {
                    throw ParseError(description: "\(place): the size is not a whole number of bytes up to \(CheckedNumber.maxByteCount)")
                }
                bytes = value
            }
            entries.append(ManifestEntry(url: try checked(fields[urlColumn], place: place), bytes: bytes))
        }
        return entries
    }

    /// `place` (where the element is, for a message) is worked out only if it is needed.
    static func entry(_ element: Any, place: @autoclosure () -> String) throws(ParseError) -> ManifestEntry {
        if let url = element as? String { return ManifestEntry(url: try checked(url, place: place())) }
        guard let object = element as? [String: Any], let url = object["url"] as? String else {
            throw ParseError(description: "\(place()): expected a URL string or an object with a \"url\"")
        }
        let size = object["bytes"] ?? object["size"]
        guard size == nil || (size as? Int).map({ (0...CheckedNumber.maxByteCount).contains($0) }) == true else {
            throw ParseError(description: "\(place()): size is not a whole number of bytes up to \(CheckedNumber.maxByteCount)")
        }
        return ManifestEntry(url: try checked(url, place: place()), bytes: size as? Int)
    }

    static func checked(_ text: String, place: @autoclosure () -> String) throws(ParseError) -> String {
        let url = text.trimmingCharacters(in: .whitespaces)
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
            throw ParseError(description: "\(place()): not an http(s) URL")
        }
        return url
    }

    /// The 1-based line where an element's URL first appears, for messages.
    static func line(of element: Any, in text: String) -> Int? {
        let needle = (element as? String) ?? ((element as? [String: Any])?["url"] as? String) ?? "\(element)"
        guard !needle.isEmpty, let range = text.range(of: needle) else { return nil }
        return text[..<range.lowerBound].count { $0 == "\n" } + 1
    }
}
