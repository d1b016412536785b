import Foundation

/// `requests.csv`: one row per request with its row, URL, source, outcome, when it was asked for
/// (`requested_ms`, from the cell's start: the clock timeseries.csv's seconds count on), latency,
/// and for the request that started a network load, that load's stage times and bytes; with
/// `--progressive`, the frame its first preview was shown in; and the connection that load went
/// over (protocol, whether it opened it, connect and TLS handshake time).
struct RequestsCSV: ReportWriter {
    static let fileName = "requests.csv"

    static let header = [
        "strategy", "concurrency", "repeat", "client", "request", "row", "image", "url", "source", "outcome",
        "visible_frame", "requested_ms", "display_frame", "display_ms", "left_frame", "placeholder_ms", "ready_ms", "image_width", "image_height", "cancel", "bytes",
        "queue_wait_ms", "disk_read_ms", "ttfb_ms",
        "transfer_ms", "decode_ms", "filter_ms", "delivery_ms", "decode_warnings", "error_class", "error", "format", "preview_frame",
        "protocol", "new_connection", "connect_ms", "tls_ms",
    ] + PolicyDimension.allCases.map(\.requestsColumn)

    init() {}

    func render(_ results: BenchmarkResults) throws -> String {
        var table = CSVTable(header: Self.header)
        func ms(_ nanoseconds: UInt64?) -> String { nanoseconds.map { Format.milliseconds(nanoseconds: $0, decimals: 3) } ?? "" }
        func exact(_ nanoseconds: UInt64?) -> String { nanoseconds.map { Format.milliseconds(nanoseconds: $0, decimals: 6) } ?? "" }
        for result in results.results {
            let cell = [result.cell.strategy.rawValue, String(result.cell.concurrency), String(result.cell.repetition)]
            let policies = PolicyDimension.allCases.map { $0.value(of: result.summary) }
            for request in result.requests {
                let stages = request.stages
                table.append(cell + [
                    String(request.client), String(request.id), String(request.row), String(request.imageID), request.url,
                    request.source.rawValue, request.outcome.rawValue, String(request.visibleFrame),
                    exact(request.requestedAt - min(request.requestedAt, result.origin)),
                    request.displayFrame.map(String.init) ?? "",
                    // Latency to the nanosecond, so its samples can be re-histogrammed exactly.
                    exact(request.latency),
                    request.leftFrame.map(String.init) ?? "",
                    exact(request.placeholder), exact(request.ready),
                    request.displayedSize.map { String($0.width) } ?? "", request.displayedSize.map { String($0.height) } ?? "",
                    request.cancel.rawValue, String(request.bytes), ms(stages?.queueWait), ms(stages?.diskRead),
                    ms(stages?.timeToFirstByte), ms(stages?.transfer),
                    ms(stages?.decode), ms(stages?.filter), ms(stages?.delivery), String(request.decodeWarnings),
                    request.errorClass?.rawValue ?? "", request.errorMessage ?? "", result.summary.format,
                    request.previewFrame.map(String.init) ?? "",
                    // The connection of the load this request started: the protocol curl spoke,
                    // and for a connection the load opened, its TCP connect and TLS handshake.
                    request.connection?.protocolVersion ?? "", request.connection.map { $0.opened ? "1" : "0" } ?? "",
                    request.connection.map { $0.opened ? ms($0.connect) : "" } ?? "",
                    request.connection.map { $0.opened && $0.tlsHandshake > 0 ? ms($0.tlsHandshake) : "" } ?? "",
                ] + policies)
            }
        }
        return table.rendered
    }
}


extension RequestsCSV {
    /// One request read back, with its cell (by the values of the policies the run varied) and repeat.
    struct Row: Sendable {
        let cell: ResultCell
        let repetition: Int
        let record: RequestRecord
    }

    /// What `render` wrote, read back (`imgbench merge`); `varied`: the policies that tell the
    /// run's cells apart. Rows that do not read as a request are skipped (a merge still has the
    /// shards' summaries); files without the columns added since read as those versions wrote
    /// them (no format: the mix; no policies: "").
    static func read(_ text: String, varied: [PolicyDimension]) -> [Row] {
        guard let (_, rows) = CSVTable.records(text) else { return [] }
        return rows.compactMap { row in
            let fields = row.fields
            guard let record = RequestRecord(row: fields), let strategy = fields["strategy"],
                  let concurrency = fields["concurrency"].flatMap(Int.init), let repetition = fields["repeat"].flatMap(Int.init) else { return nil }
            let variant = PolicyVariant(varied.reduce(into: [:]) { $0[$1] = fields[$1.requestsColumn] ?? "" })
            return Row(cell: ResultCell(strategy: strategy, concurrency: concurrency, format: fields["format"] ?? "", variant: variant),
                       repetition: repetition, record: record)
        }
    }

    /// Several files' text as one: the first header, then every file's rows as written.
    static func joined(_ texts: [String]) -> String {
        texts.reduce("") { joined, text in joined.isEmpty ? text : joined + String(text.drop { $0 != "\n" }.dropFirst()) }
    }
}
