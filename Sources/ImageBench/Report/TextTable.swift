import Foundation

/// A small table with a title and a legend, rendered for the terminal (aligned: the first
/// `textColumns` columns to the left, numbers to the right), report.md and report.html. Empty
/// without rows.
struct TextTable: Sendable {
    let title: String
    let header: [String]
    let rows: [[String]]
    let legend: String
    let textColumns: Int

    var text: String {
        guard !rows.isEmpty else { return "" }
        let widths = header.indices.map { column in rows.reduce(header[column].count) { max($0, $1[column].count) } }
        func line(_ fields: [String]) -> String {
            fields.enumerated().map { column, field in
                column < textColumns ? field.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                                     : String(repeating: " ", count: widths[column] - field.count) + field
            }.joined(separator: "  ")
        }
        return title + "\n" + ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n" + legend + "\n\n"
    }

    var html: String {
        guard !rows.isEmpty else { return "" }
        return "<h2>\(escape(title))</h2>\n<div class=\"table-wrap\">\n<table class=\"numbers\">\n<tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
            + rows.map { "<tr>" + $0.map { "<td>\(escape($0))</td>" }.joined() + "</tr>" }.joined(separator: "\n")
            + "\n</table>\n</div>\n<p>\(escape(legend))</p>\n"
    }

    var markdown: String {
        guard !rows.isEmpty else { return "" }
        let align = header.indices.map { $0 < textColumns ? ":---" : "---:" }
        return "## \(title)\n\n" + ([header, align] + rows).map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
            + "\n\n" + legend + "\n\n"
    }
}
