import Foundation

/// RFC 4180 rows: fields with a comma, quote or line break are quoted, quotes doubled, CRLF line
/// ends, so spreadsheets and pandas read them without cleaning.
struct CSVTable {
    private var text = ""

    init(header: [String]) { append(header) }

    mutating func append(_ fields: [String]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { text += "," }
            text += Self.escape(field)
        }
        text += "\r\n"
    }

    var rendered: String { text }

    static func escape(_ field: String) -> String {
        // Bytes, not Characters: a scan of UTF-8 is a tenth of the cost, and these four are ASCII.
        guard field.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}


extension CSVTable {
    /// Parses RFC 4180 text (quoted fields, doubled quotes, CRLF or LF line ends) into rows.
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending { pending = nil; return scalar }
            return iterator.next()
        }
        while let scalar = next() {
            if quoted {
                if scalar == "\"" {
                    if let following = next() {
                        if following == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; pending = following }
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",": row.append(field); field = ""
            case "\r": break
            case "\n": row.append(field); rows.append(row); row = []; field = ""
            default: field.unicodeScalars.append(scalar)
            }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}

extension CSVTable {
    /// `text`'s rows after its header, each by column name, with its number in the file (the
    /// header is row 1), for readers that say which row is wrong. Rows with another number of
    /// fields than the header are skipped; a header that names a column twice (a hostile or
    /// hand-edited file) keeps the first. `rename` spells each header name as the reader wants it
    /// (`Metric.currentName`). Nil when there is no header.
    static func records(_ text: String, rename: (String) -> String = { $0 })
        -> (header: [String], rows: [(number: Int, fields: [String: String])])? {
        let rows = parse(text)
        guard let header = rows.first.map({ $0.map(rename) }) else { return nil }
        let records = rows.enumerated().dropFirst().filter { $0.element.count == header.count }.map { index, fields in
            (number: index + 1, fields: Dictionary(zip(header, fields), uniquingKeysWith: { first, _ in first }))
        }
        return (header, records)
    }
}
