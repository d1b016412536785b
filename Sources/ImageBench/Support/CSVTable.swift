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
