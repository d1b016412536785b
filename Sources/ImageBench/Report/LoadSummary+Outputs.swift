extension BenchmarkResults {
    /// The load summary for the terminal ("" unless a load test).
    public var loadSummaryText: String { LoadSummary(self).text }
}

/// The load summary in each output: a block per cell in the terminal (k6's dotted lines), a table
/// of figures × cells in report.md and report.html, an object per cell in summary.json.
extension LoadSummary {
    /// Each figure of a cell by its k6 name, with its value and rate (or note).
    func figures(_ cell: Cell) -> [(name: String, value: String, detail: String)] {
        var lines: [(String, String, String)] = [
            ("http_reqs", Self.count(cell.requests), Self.perSecond(cell.rate(Double(cell.requests)))),
            ("http_req_failed", Format.percent(cell.failedRate), "\(Self.count(cell.failed.total)) of \(Self.count(cell.requests))"),
            ("http_statuses", cell.statuses.map { "\($0.key) ×\(Self.count($0.count))" }.joined(separator: ", "), ""),
            // Durations are the delivered loads' (with their stages): a load cancelled after its
            // answer arrived, or whose body failed to decode, is a 2xx without one; said so.
            ("http_req_duration", Self.durations(cell.duration), cell.duration.count >= cell.succeeded
                ? "\(Self.count(cell.duration.count)) requests answered"
                : "\(Self.count(cell.duration.count)) of \(Self.count(cell.succeeded)) answered: those whose loads were delivered"),
            ("http_req_waiting", Self.durations(cell.waiting), "time to first byte"),
            ("http_req_connecting", Self.durations(cell.connecting), "\(Self.count(cell.connecting.count)) new connections"),
        ] + (cell.tlsHandshaking.count > 0 ? [("http_req_tls_handshaking", Self.durations(cell.tlsHandshaking),
                                              "\(Self.count(cell.tlsHandshaking.count)) handshakes")] : []) + [
            ("connections", "\(Self.count(cell.connectionsOpened)) opened, \(Self.count(cell.connectionsReused)) requests reused one",
             cell.requests > 0 ? String(format: "%.1f opened per 1,000 requests", Double(cell.connectionsOpened) * 1_000 / Double(cell.requests)) : ""),
            ("data_received", Self.data(Double(cell.bytesReceived)), Self.data(cell.rate(Double(cell.bytesReceived))) + "/s"),
            ("data_sent", Self.data(Double(cell.bytesSent)), Self.data(cell.rate(Double(cell.bytesSent))) + "/s"),
            ("sessions", Self.count(cell.sessions), Self.perSecond(cell.rate(Double(cell.sessions)))),
            ("vus", "min=\(cell.usersMin) max=\(cell.usersMax)", "users scrolling, over the seconds"),
            ("warm_up", warmUpSeconds > 0 ? "\(Format.compact(warmUpSeconds)) s before each run" : "none",
             warmUpSeconds > 0 ? "not counted here; the server sees its requests too (--warmup-seconds 0: none)" : ""),
        ]
        if !cell.thresholds.isEmpty {
            lines.append(("thresholds", cell.thresholds.map { ($0.passed ? "✓ " : "✗ ") + $0.threshold }.joined(separator: "; "), ""))
        }
        return lines
    }

    func heading(_ cell: Cell) -> String {
        "\(cell.name) (\(cell.runs) run\(cell.runs == 1 ? "" : "s"), \(String(format: "%.1f", cell.seconds)) s)"
    }

    /// For the terminal: a block per cell, each figure on a dotted line as k6 prints it.
    var text: String {
        guard !cells.isEmpty else { return "" }
        let blocks = cells.map { cell in
            let lines = figures(cell)
            // Dotted to one column, past the longest name (k6's width, wider for a TLS run's).
            let column = max(22, (lines.map(\.name.count).max() ?? 0) + 3)
            return "  " + heading(cell) + "\n" + lines.map { figure in
                let dots = String(repeating: ".", count: max(3, column - figure.name.count))
                // A short value and its rate in columns, as k6 has them; a long one's note in brackets.
                let value = figure.detail.isEmpty ? figure.value
                    : figure.value.count <= 12 ? figure.value.padding(toLength: 12, withPad: " ", startingAt: 0) + "  " + figure.detail
                    : figure.value + " (\(figure.detail))"
                return "    \(figure.name)\(dots): \(value)"
            }.joined(separator: "\n")
        }
        return "Load summary (k6's end-of-test figures; the whole test of each cell):\n" + blocks.joined(separator: "\n\n") + "\n\n"
    }

    /// Figures as rows, cells as columns.
    private var rows: [[String]] {
        guard let first = cells.first else { return [] }
        return figures(first).indices.map { index in
            [figures(first)[index].name] + cells.map { cell in
                let figure = figures(cell)[index]
                return figure.detail.isEmpty ? figure.value : "\(figure.value) (\(figure.detail))"
            }
        }
    }

    var markdown: String {
        guard !cells.isEmpty else { return "" }
        let header = "| figure | " + cells.map(heading).joined(separator: " | ") + " |\n|---|" + cells.map { _ in "---|" }.joined() + "\n"
        return "## Load summary\n\nk6's end-of-test figures, each cell's whole test (its repeats added up).\n\n" + header
            + rows.map { "| " + $0.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |" }.joined(separator: "\n") + "\n\n"
    }

    var html: String {
        guard !cells.isEmpty else { return "" }
        let head = "<tr><th>figure</th>" + cells.map { "<th>\(escape(heading($0)))</th>" }.joined() + "</tr>"
        let body = rows.map { row in "<tr><th>\(escape(row[0]))</th>" + row.dropFirst().map { "<td>\(escape($0))</td>" }.joined() + "</tr>" }
        return "<h2>Load summary</h2>\n<p>k6's end-of-test figures, each cell's whole test (its repeats added up).</p>\n"
            + "<div class=\"table-wrap\"><table class=\"load-summary\">\n\(head)\n" + body.joined(separator: "\n") + "\n</table></div>\n"
    }

    /// summary.json's `load_summary`: numbers, not text (durations in ms, data in bytes).
    var jsonObject: [[String: Any]] {
        cells.map { cell in
            func durations(_ value: Durations) -> [String: Any] {
                var object: [String: Any] = ["count": value.count]
                for (name, ms) in value.named { object[name.replacingOccurrences(of: "(", with: "").replacingOccurrences(of: ")", with: "")] = ms }
                return object
            }
            var object: [String: Any] = [
                "cell": cell.name, "runs": cell.runs, "seconds": cell.seconds,
                "http_reqs": ["count": cell.requests, "rate": cell.rate(Double(cell.requests))],
                "http_req_failed": ["rate": cell.failedRate, "failed": cell.failed.total, "requests": cell.requests],
                "http_statuses": Dictionary(cell.statuses.map { ($0.key, $0.count) }, uniquingKeysWith: +),
                "http_req_duration": durations(cell.duration), "http_req_waiting": durations(cell.waiting),
                "http_req_connecting": durations(cell.connecting),
                "connections": ["opened": cell.connectionsOpened, "reused": cell.connectionsReused],
                "data_received": ["bytes": cell.bytesReceived, "rate": cell.rate(Double(cell.bytesReceived))],
                "data_sent": ["bytes": cell.bytesSent, "rate": cell.rate(Double(cell.bytesSent))],
                "sessions": ["count": cell.sessions, "rate": cell.rate(Double(cell.sessions))],
                "vus": ["min": cell.usersMin, "max": cell.usersMax],
                "warm_up": ["seconds_per_run": warmUpSeconds],
            ]
            if cell.tlsHandshaking.count > 0 { object["http_req_tls_handshaking"] = durations(cell.tlsHandshaking) }
            object["thresholds"] = cell.thresholds.map { ["threshold": $0.threshold, "passed": $0.passed] }
            return object
        }
    }
}
