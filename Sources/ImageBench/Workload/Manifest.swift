import Foundation

/// Manifest files: a JSON array of URLs or of objects with `url` (and optional `bytes` or
/// `size`); a CSV file with a `url` column (and optional `bytes`/`size`); or a property list
/// array of URL strings or dictionaries, like the classic apps.plist. Errors name the file and
/// the line.
enum Manifest {
    struct ParseError: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    /// `limit`: how many entries the run can reach (`RunSettings.keepManifestEntriesInUse`); the
    /// rest is neither converted nor checked, so a million-entry listing costs one pass.
    static func parse(_ data: Data, name: String, limit: Int? = nil) throws(ParseError) -> [ManifestEntry] {
        let head = String(decoding: data.prefix(64), as: UTF8.self).drop { $0.isWhitespace }
        let entries: [ManifestEntry]
        if name.lowercased().hasSuffix(".plist") || head.hasPrefix("<?xml") || head.hasPrefix("<plist") || data.starts(with: Array("bplist".utf8)) {
            entries = try plist(data, name: name)
        } else if name.lowercased().hasSuffix(".json") || head.hasPrefix("[") {
            entries = try json(data, name: name, limit: limit)
        } else {
            entries = try csv(String(decoding: data, as: UTF8.self), name: name, limit: limit)
        }
        guard !entries.isEmpty else { throw ParseError(description: "\(name): the manifest lists no URLs") }
        return limit.map { Array(entries.prefix($0)) } ?? entries
    }

    /// One element of a JSON manifest, as found: checked afterwards, so an error names its line.
    enum JSONElement: Decodable {
        case url(String)
        case object(url: String?, size: Int?, sizeInvalid: Bool)
        case other

        enum Key: String, CodingKey { case url, bytes, size }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self = .url(text)
            } else if let object = try? decoder.container(keyedBy: Key.self) {
                let url = try? object.decodeIfPresent(String.self, forKey: .url)
                let key: Key = object.contains(.bytes) ? .bytes : .size
                let size = try? object.decodeIfPresent(Int.self, forKey: key)
                self = .object(url: url ?? nil, size: size ?? nil, sizeInvalid: object.contains(key) && (size ?? nil) == nil)
            } else {
                self = .other
            }
        }
    }

    /// The array's first `limit` elements (every one without a limit).
    struct JSONPrefix: Decodable {
        static let limitKey = CodingUserInfoKey(rawValue: "imgbench.manifest.limit")!
        var elements: [JSONElement] = []

        init(from decoder: any Decoder) throws {
            var array = try decoder.unkeyedContainer()
            let limit = decoder.userInfo[Self.limitKey] as? Int ?? Int.max
            while !array.isAtEnd && elements.count < limit { elements.append(try array.decode(JSONElement.self)) }
        }
    }

    /// JSONDecoder, not JSONSerialization: on Linux the latter took 3.1 GB and 5 s for a
    /// million entries (a bridged dictionary each), the former 0.3 GB and under 2 s.
    static func json(_ data: Data, name: String, limit: Int?) throws(ParseError) -> [ManifestEntry] {
        let decoder = JSONDecoder()
        if let limit { decoder.userInfo[JSONPrefix.limitKey] = limit }
        let elements: [JSONElement]
        do {
            elements = try decoder.decode(JSONPrefix.self, from: data).elements
        } catch let DecodingError.typeMismatch(_, context) where context.codingPath.isEmpty {
            throw ParseError(description: "\(name):1: expected a JSON array of URLs")
        } catch {
            throw ParseError(description: syntaxError(data, name: name))
        }
        var text: String?
        func place(_ index: Int, _ url: String?) -> String {
            text = text ?? String(decoding: data, as: UTF8.self)
            return (url.flatMap { line(of: $0, in: text!) }).map { "\(name):\($0)" } ?? "\(name): element \(index + 1)"
        }
        return try elements.enumerated().map { index, element throws(ParseError) in
            switch element {
            case .url(let url):
                return ManifestEntry(url: try checked(url, place: place(index, url)))
            case .object(let url?, let size, let sizeInvalid):
                guard !sizeInvalid, size.map({ (0...CheckedNumber.maxByteCount).contains($0) }) ?? true else {
                    throw ParseError(description: "\(place(index, url)): size is not a whole number of bytes up to \(CheckedNumber.maxByteCount)")
                }
                return ManifestEntry(url: try checked(url, place: place(index, url)), bytes: size)
            case .object(nil, _, _), .other:
                throw ParseError(description: "\(place(index, nil)): expected a URL string or an object with a \"url\"")
            }
        }
    }

    /// Where invalid JSON goes wrong, as a line: JSONDecoder does not say, JSONSerialization does
    /// (as a character offset), so it is asked, for files small enough that its cost is no harm.
    static func syntaxError(_ data: Data, name: String) -> String {
        guard data.count <= 8 << 20 else { return "\(name): not valid JSON" }
        var detail = "not valid JSON"
        do {
            _ = try JSONSerialization.jsonObject(with: data)
        } catch {
            let described = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
            if let range = described.range(of: #"character \d+"#, options: .regularExpression),
               let offset = Int(described[range].dropFirst("character ".count)) {
                return "\(name):\(data.prefix(offset).count { $0 == UInt8(ascii: "\n") } + 1): not valid JSON: \(described)"
            }
            if !described.isEmpty { detail += ": " + described }
        }
        return "\(name): \(detail)"
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

    static func csv(_ text: String, name: String, limit: Int? = nil) throws(ParseError) -> [ManifestEntry] {
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
            if let limit, entries.count >= limit { break }
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
