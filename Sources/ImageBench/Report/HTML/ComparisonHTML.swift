import Foundation

/// `imgbench compare BASE NEW --html FILE`: the comparison as a self-contained page, one table
/// per strategy × concurrency cell under its verdict, each change coloured by whether it is better
/// (green) or worse (red) for that metric beyond the noise (grey otherwise), with a bar for its size.
extension ResultsComparison {
    public var html: String {
        var body = "<h1>imgbench comparison</h1>\n<p>base: <code>\(escape(base.path))</code><br/>new: <code>\(escape(new.path))</code></p>\n"
        var cell: ResultCell?
        for line in lines {
            if line.cell != cell {
                if cell != nil { body += "</table>\n" }
                cell = line.cell
                body += "<h2>\(escape(line.cell.name))</h2>\n<p class=\"verdict\">\(escape(verdict(for: line.cell)))</p>\n<table class=\"cell\">\n"
                    + "<tr><th>metric</th><th>base</th><th>new</th><th>change</th><th></th><th>beyond noise</th></tr>\n"
            }
            let change = line.relativeChange
            // Coloured only beyond the noise: a change the repeats cannot tell from noise is grey.
            let colour = line.noise == "worse" ? "#d62728" : line.noise == "better" ? "#2ca02c" : "#999"
            let width = min(120, abs(change ?? 0) * 240)
            body += "<tr class=\"metric\"><td>\(escape(line.metric))</td><td>\(Format.compact(line.base))</td><td>\(Format.compact(line.new))</td>"
                + "<td style=\"color: \(colour)\">\(change.map(Format.change) ?? "new")</td>"
                + "<td><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"124\" height=\"10\"><rect width=\"\(String(format: "%.1f", width))\" height=\"10\" fill=\"\(colour)\"/></svg></td><td>\(line.noise)</td></tr>\n"
        }
        if cell != nil { body += "</table>\n" }
        if lines.isEmpty { body += "<p>No strategy × concurrency cell is in both directories.</p>\n" }
        if !unmatched.isEmpty { body += "<p>Only in one directory: \(escape(unmatched.joined(separator: ", ")))</p>\n" }
        return page(title: "imgbench comparison", style: """
            table { border-collapse: collapse; margin-bottom: 12px; } td, th { border: 1px solid #ddd; padding: 2px 8px; text-align: right; }
            td:first-child, th:first-child { text-align: left; }
            """, body: body)
    }
}
