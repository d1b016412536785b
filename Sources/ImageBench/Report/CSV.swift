import Foundation

/// RFC 4180 rows: fields with a comma, quote or line break are quoted, quotes doubled, CRLF line
/// ends, so spreadsheets and pandas read them without cleaning.
struct CSVTable {
    private var text = ""

    init(header: [String]) { append(header) }

    mutating func append(_ fields: [String]) {
        text += fields.map(Self.escape).joined(separator: ",") + "\r\n"
    }

    var rendered: String { text }

    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

