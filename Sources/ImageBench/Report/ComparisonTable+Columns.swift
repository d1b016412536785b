import Foundation

/// The comparison table's columns: what the terminal and report.md show side by side.
extension ComparisonTable {
    struct Column: Sendable {
        let title: String
        /// The metric whose direction (from the catalog) marks the best value; nil where nobody ranks.
        let ranked: Metric?
        /// The text of one cell's runs: one run's value, or with repeats their median (and, in a
        /// ranked column, ± the wider side of the median's 95% interval, so a star can be judged).
        let format: @Sendable ([RunSummary]) -> String

        /// A column showing one metric; `rank` false shows it without marking a best.
        init(_ title: String, _ metric: Metric, rank: Bool = true, _ show: @escaping @Sendable (Double) -> String = Format.whole) {
            self.title = title
            let ranked = rank && metric.better != nil ? metric : nil
            self.ranked = ranked
            format = { runs in
                let values = runs.map { metric.number(of: $0) ?? 0 }
                guard values.count > 1 else { return show(values.first ?? 0) }
                let estimate = RepeatStatistics.median(values)
                let half = show(max(estimate.high - estimate.median, estimate.median - estimate.low))
                return show(estimate.median) + (ranked == nil || half == show(0) ? "" : " ±" + half)
            }
        }

        init(_ title: String, format: @escaping @Sendable ([RunSummary]) -> String) {
            self.title = title
            ranked = nil
            self.format = format
        }
    }

    /// The median over a cell's runs of one field (its value with one run).
    static func median(_ runs: [RunSummary], _ value: (RunSummary) -> Double) -> Double {
        RepeatStatistics.median(of: runs.map(value))
    }

    static let strategy = Column("strategy") { runs in
        // With --formats, the format is part of the cell: "threads avif".
        let first = runs[0]
        let name = CellName.names(first.format) ? "\(first.strategy) \(first.format)" : first.strategy
        return switch CellValidity(runs) {
        case .valid: name
        case .control: name + " (control)"
        case .invalid: name + " (not ranked)"
        }
    }
    static let runCount = Column("runs") { "\($0.count)" }
    static let cancellations = Column("cancel q/in") { runs in
        "\(Format.whole(median(runs) { Double($0.cancelledQueued) }))/\(Format.whole(median(runs) { Double($0.cancelledInflight) }))"
    }
    static let concurrency = Column("conc mean/peak") { runs in
        "\(Format.tenths(median(runs) { $0.achievedConcurrencyMean }))/\(Format.whole(median(runs) { Double($0.achievedConcurrencyPeak) }))"
    }

    static let columns: [Column] = [
        strategy, Column("limit", .concurrency),
        // Placeholder time covers every request (n = requests); display latency the shown ones (n = shown).
        Column("requests", .requests), Column("ph mean ms", .placeholder[.mean], Format.tenths), Column("ph p95 ms", .placeholder[.p95]),
        Column("mem hit", .memoryHitRate, Format.percent), Column("network", .networkFetches, rank: false),
        Column("merged", .merged), cancellations,
        // Costs are not "less is best" (doing less is not winning): the verdict weighs them per image.
        Column("MB down", .bytesDownloaded, rank: false, Format.megabytes), Column("max MB saved", .bytesSaved, rank: false, Format.megabytes),
        Column("shown", .displayed, rank: false), Column("display p50 ms", .display[.p50]), Column("display p95 ms", .display[.p95]),
        Column("display p99 ms", .display[.p99]),
        Column("never shown", .neverDisplayed), Column("placeholder", .placeholderRatio, Format.percent),
        Column("hitch ms/s", .hitchMsPerS, Format.tenths),
        concurrency,
        Column("errors", .errors),
    ]

    /// Under `--clients` or `--no-decode` the server is what is tested: its side first (requests
    /// per second, errors, time to first byte), then what users saw that still means something
    /// there; placeholder and hitch columns are left out. Nothing is starred: a load table ranks
    /// no strategy.
    static let loadColumns: [Column] = [
        strategy, Column("limit", .concurrency),
        Column("http req", .httpRequests, rank: false), Column("req/s", .requestsPerS, rank: false),
        // The server's errors: failed HTTP requests, of which the rate is (not rows that showed one).
        Column("http errors", .httpErrors, rank: false), Column("error rate", .errorRate, rank: false, Format.percent),
        Column("ttfb p50 ms", .ttfb[.p50], rank: false, Format.tenths), Column("ttfb p90 ms", .ttfb[.p90], rank: false, Format.tenths),
        Column("ttfb p95 ms", .ttfb[.p95], rank: false, Format.tenths), Column("ttfb p99 ms", .ttfb[.p99], rank: false, Format.tenths),
        Column("ttfb max ms", .ttfb[.max], rank: false, Format.tenths),
        Column("request p50 ms", .request[.p50], rank: false, Format.tenths), Column("request p99 ms", .request[.p99], rank: false, Format.tenths),
        Column("MB down", .bytesDownloaded, rank: false, Format.megabytes),
        Column("requests", .requests, rank: false), Column("mem hit", .memoryHitRate, rank: false, Format.percent),
        cancellations,
        concurrency,
        Column("host late", .hostLateFrames, rank: false),
    ]

    /// What the abbreviated headers mean, under the table.
    static let appColumnsLegend = "ph: placeholder time, from a row's first frame on screen to its image (every request); "
        + "display: display latency, from the frame a row became visible to the frame its image was shown (the requests shown); cancel q/in: loads cancelled while queued / in flight; "
        + "max MB saved: bytes of cancelled images never fetched later (an upper bound on what cancelling saved); "
        + "placeholder: share of on-screen row time spent on a placeholder; conc: loads at once, mean/peak."
    static let loadColumnsLegend = "ttfb: time to first byte; request: from sending the request to its last byte; "
        + "cancel q/in: loads cancelled while queued / in flight; conc: loads at once, mean/peak."
}
