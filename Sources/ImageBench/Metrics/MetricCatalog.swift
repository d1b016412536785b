/// Every metric of a run, in summary.csv's column order. summary.csv, clients.csv and summary.json,
/// the combination of users and shards, the statistics over repeats, the gate's thresholds,
/// `compare` and the report tables all come from this list: adding a metric is adding an entry
/// here (and recording it in `RunTally`; and in `aggregated` if it is a headline metric); adding
/// a statistic to a distribution is adding it to its family's list.
extension Metric {
    static let strategy = Metric("strategy", "name", nil, .same, .text(\.strategy))
    static let concurrency = Metric("concurrency", "loads", nil, .same, .integer(\.concurrency))
    static let repetition = Metric("repeat", "index", nil, .same, .integer(\.repetition))
    static let network = Metric("network", "profile", nil, .same, .text(\.network))
    static let transport = Metric("transport", "name", nil, .same, .text(\.transport))
    /// The cell's policies: columns since 0.4, so a run that varies them has one row per value.
    static let cancel = Metric("cancel", "policy", nil, .same, .text(\.cancel), since03: true)
    static let prefetch = Metric("prefetch", "rows", nil, .same, .integer(\.prefetch), since03: true)
    static let memoryCacheMb = Metric("memory_cache_mb", "MB", nil, .same, .integer(\.memoryCacheMb), since03: true)
    /// Columns since 0.5, for the settings that became dimensions then.
    static let coalesce = Metric("coalesce", "switch", nil, .same, .text(\.coalesce), since03: true)
    static let diskRead = Metric("disk_read", "place", nil, .same, .text(\.diskRead), since03: true)
    static let decodeConcurrency = Metric("decode_concurrency", "threads", nil, .same, .text(\.decodeConcurrency), since03: true)
    static let filter = Metric("filter", "name", nil, .same, .text(\.filter), since03: true)
    static let rows = Metric("rows", "rows", nil, .largest, .integer(\.rows))  // the same in every part
    static let rowsVisited = Metric("rows_visited", "rows", .higherIsBetter, .sum, .integer(\.rowsVisited))
    static let requests = Metric("requests", "requests", nil, .sum, .integer(\.requests))
    static let memoryHits = Metric("memory_hits", "requests", nil, .sum, .integer(\.memoryHits))
    static let diskHits = Metric("disk_hits", "requests", nil, .sum, .integer(\.diskHits))
    static let networkFetches = Metric("network_fetches", "requests", .lowerIsBetter, .sum, .integer(\.networkFetches))
    static let merged = Metric("merged", "requests", nil, .sum, .integer(\.merged))
    static let memoryHitRate = Metric("memory_hit_rate", "ratio", .higherIsBetter, .recomputed, .derived { $0.memoryHitRate })
    static let diskHitRate = Metric("disk_hit_rate", "ratio", .higherIsBetter, .recomputed, .derived { $0.diskHitRate })
    static let cancelledQueued = Metric("cancelled_queued", "loads", nil, .sum, .integer(\.cancelledQueued))
    static let cancelledInflight = Metric("cancelled_inflight", "loads", nil, .sum, .integer(\.cancelledInflight))
    static let bytesDownloaded = Metric("bytes_downloaded", "bytes", .lowerIsBetter, .sum, .integer(\.bytesDownloaded))
    static let bytesSaved = Metric("bytes_saved", "bytes", .higherIsBetter, .sum, .integer(\.bytesSaved))
    static let bytesWasted = Metric("bytes_wasted", "bytes", .lowerIsBetter, .sum, .integer(\.bytesWasted))
    static let decodeMsSaved = Metric("decode_ms_saved", "ms", .higherIsBetter, .sum, .real(\.decodeMsSaved))
    static let wastedCompletions = Metric("wasted_completions", "loads", .lowerIsBetter, .sum, .integer(\.wastedCompletions))
    static let prefetchLoads = Metric("prefetch_loads", "loads", nil, .sum, .integer(\.prefetchLoads))
    static let prefetchCancelled = Metric("prefetch_cancelled", "loads", nil, .sum, .integer(\.prefetchCancelled))
    static let memoryEvictions = Metric("memory_evictions", "images", .lowerIsBetter, .sum, .integer(\.memoryEvictions))
    static let diskWrites = Metric("disk_writes", "files", nil, .sum, .integer(\.diskWrites))
    static let diskDiscarded = Metric("disk_discarded", "files", .lowerIsBetter, .sum, .integer(\.diskDiscarded))
    static let errors = Metric("errors", "requests", .lowerIsBetter, .sum, .integer(\.errors))
    /// Failed loads of one class (`errors_<class>`).
    static func errors(of errorClass: ErrorClass) -> Metric {
        Metric("errors_" + errorClass.rawValue, "loads", .lowerIsBetter, .sum, .integer(\.[errors: errorClass]))
    }
    static let retries = Metric("retries", "attempts", .lowerIsBetter, .sum, .integer(\.retries))
    static let httpRequests = Metric("http_requests", "requests", nil, .sum, .integer(\.httpRequests))
    /// HTTP requests that failed, each attempt its own (columns since 0.7): what `error_rate`
    /// counts, by status or class (`404:8250;timeout:3`), and the ones a cancel cut.
    static let httpErrors = Metric("http_errors", "requests", .lowerIsBetter, .sum, .integer(\.httpErrors), since03: true)
    static let httpErrorsByStatus = Metric("http_errors_by_status", "requests", nil, .sumPerKey, .text(\.httpErrorsByStatusText),
                                           since03: true)
    static let httpCancelled = Metric("http_cancelled", "requests", nil, .sum, .integer(\.httpCancelled), since03: true)
    /// What the HTTP requests cost on the wire (columns since 0.7; `WireTotals`).
    static let wireBytesSent = Metric("wire_bytes_sent", "bytes", nil, .sum, .integer(\.wireBytesSent), since03: true)
    static let wireBytesReceived = Metric("wire_bytes_received", "bytes", nil, .sum, .integer(\.wireBytesReceived), since03: true)
    static let connectionsOpened = Metric("connections_opened", "connections", .lowerIsBetter, .sum, .integer(\.connectionsOpened), since03: true)
    static let connectionsReused = Metric("connections_reused", "requests", nil, .sum, .integer(\.connectionsReused), since03: true)
    static let sessions = Metric("sessions", "sessions", nil, .sum, .integer(\.sessions), since03: true)
    /// The protocols (columns since 0.8): the version asked for, connections per 1,000 HTTP
    /// requests (HTTP/1.1 opens one per load in flight, and one more after each in-flight
    /// cancel; HTTP/2 one per user and host), and what each new HTTPS connection's handshake took.
    static let http = Metric("http", "version", nil, .same, .text(\.http), since03: true)
    static let connectionsPer1000 = Metric("connections_per_1000", "connections", .lowerIsBetter, .recomputed,
                                           .derived { $0.httpRequests > 0 ? Double($0.connectionsOpened) * 1_000 / Double($0.httpRequests) : 0 },
                                           since03: true)
    static let tlsHandshake = DistributionFamily("tls_handshake", \.tlsHandshake, [.p50, .p95, .p99], since03: true)
    static let decodeWarnings = Metric("decode_warnings", "images", .lowerIsBetter, .sum, .integer(\.decodeWarnings))
    static let displayed = Metric("displayed", "requests", .higherIsBetter, .sum, .integer(\.displayed))
    static let neverDisplayed = Metric("never_displayed", "requests", .lowerIsBetter, .sum, .integer(\.neverDisplayed))
    /// The distributions: one declaration each, whose entries (`display[.p95]`, …) are generated,
    /// a statistic each, in the order listed (`DistributionFamily`). Percentiles and means come
    /// from histograms merged across users and shards, never averaged.
    static let display = DistributionFamily("display", \.display, [.p50, .p90, .p95, .p99, .max], formerly: "latency")
    static let placeholder = DistributionFamily("placeholder", \.placeholder, [.p50, .p95, .p99, .mean, .n], counting: "requests")
    static let ready = DistributionFamily("ready", \.ready, [.p50, .p95, .p99])
    static let placeholderRatio = Metric("placeholder_ratio", "ratio", .lowerIsBetter, .requestWeightedMean, .real(\.placeholderRatio))
    /// Placeholder row-seconds per second of scrolling: the rows on screen without their image,
    /// on average, while the trace moves. Unlike placeholder time per request, it weighs a row by
    /// how long it stayed on screen waiting, so the rows a fling flies past count for little.
    static let placeholderRowSecondsPerS = Metric("placeholder_row_s_per_s", "rows", .lowerIsBetter, .mean,
                                                         .real(\.placeholderRowSecondsPerS), since03: true)
    static let hitchMsPerS = Metric("hitch_ms_per_s", "ms/s", .lowerIsBetter, .mean, .real(\.hitchMsPerS))
    static let mainBusyMsPerS = Metric("main_busy_ms_per_s", "ms/s", .lowerIsBetter, .mean, .real(\.mainBusyMsPerS))
    static let droppedFrames = Metric("dropped_frames", "frames", .lowerIsBetter, .sum, .integer(\.droppedFrames))
    /// Summed over users: the loads running at once across all of them (the peak is an upper bound).
    static let hostLateFrames = Metric("host_late_frames", "frames", .lowerIsBetter, .sum, .integer(\.hostLateFrames))
    static let hostOverloaded = Metric("host_overloaded", "flag", nil, .largest, .flag(\.hostOverloaded))
    static let achievedConcurrencyMean = Metric("achieved_concurrency_mean", "loads", .higherIsBetter, .sum, .real(\.achievedConcurrencyMean))
    static let achievedConcurrencyPeak = Metric("achieved_concurrency_peak", "loads", nil, .sum,
                                                       .integer(\.achievedConcurrencyPeak))
    static let imagesDecoded = Metric("images_decoded", "images", nil, .sum, .integer(\.imagesDecoded))
    /// Loads that delivered an image, decoded or (`--no-decode`) fetched whole. A column since 0.3:
    /// older directories read it as images_decoded, which counted both.
    static let imagesLoaded = Metric("images_loaded", "images", nil, .sum, .integer(\.imagesLoaded), since03: true)
    static let imagesPerS = Metric("images_per_s", "images/s", .higherIsBetter, .recomputed, .derived { $0.imagesPerS })
    static let bytesPerS = Metric("bytes_per_s", "bytes/s", .higherIsBetter, .recomputed, .derived { $0.bytesPerS })
    /// CPU and memory are measured per process: users in one process share them.
    static let cpuUserS = Metric("cpu_user_s", "s", .lowerIsBetter, .largest, .real(\.cpuUserS))
    static let cpuSysS = Metric("cpu_sys_s", "s", .lowerIsBetter, .largest, .real(\.cpuSysS))
    static let peakRssMb = Metric("peak_rss_mb", "MB", .lowerIsBetter, .largest, .real(\.peakRssMb))
    static let durationS = Metric("duration_s", "s", .lowerIsBetter, .largest, .real(\.durationS))
    static let partial = Metric("partial", "flag", nil, .largest, .flag(\.partial))
    /// The server's side (columns since 0.3): what a backend engineer reads first.
    static let requestsPerS = Metric("requests_per_s", "requests/s", .higherIsBetter, .recomputed, .derived { $0.requestsPerS })
    /// Failed HTTP requests ÷ HTTP requests that ended (`RunSummary.errorRate`).
    static let errorRate = Metric("error_rate", "ratio", .lowerIsBetter, .recomputed, .derived { $0.errorRate })
    static let ttfb = DistributionFamily("ttfb", \.ttfb, [.p50, .p90, .p95, .p99, .max], since03: true)
    static let request = DistributionFamily("request", \.request, [.p50, .p90, .p95, .p99, .max], since03: true)

    static let format = Metric("format", "name", nil, .same, .text(\.format), since03: true)
    /// Decode time per megapixel of the file (the size decode cost follows), over the images decoded.
    static let decodeMsPerMp = DistributionFamily("decode_ms_per_mp", \.decodeMsPerMp, [.p50, .p95], suffix: "", since03: true)
    /// Each stage's loads at once (`PipelineStages`), time-weighted over the span the stage was
    /// in use: transfers in flight, decodes and filters running, whichever queue they ran on.
    static let networkConcurrencyMean = Metric("network_concurrency_mean", "loads", .higherIsBetter, .sum,
                                                      .real(\.networkConcurrencyMean), since03: true)
    static let networkConcurrencyPeak = Metric("network_concurrency_peak", "loads", nil, .sum, .integer(\.networkConcurrencyPeak), since03: true)
    static let decodeConcurrencyMean = Metric("decode_concurrency_mean", "loads", nil, .sum, .real(\.decodeConcurrencyMean), since03: true)
    static let decodeConcurrencyPeak = Metric("decode_concurrency_peak", "loads", nil, .sum, .integer(\.decodeConcurrencyPeak), since03: true)
    static let filterConcurrencyMean = Metric("filter_concurrency_mean", "loads", nil, .sum, .real(\.filterConcurrencyMean), since03: true)
    /// `--progressive`: time to first image (a preview or the image), requests that showed a
    /// preview first, and what the previews cost (decodes, and their decode and filter time).
    static let firstImage = DistributionFamily("first_image", \.firstImage, [.p50, .p95], since03: true)
    static let previewsShown = Metric("previews_shown", "requests", nil, .sum, .integer(\.previewsShown), since03: true)
    static let previewDecodes = Metric("preview_decodes", "images", nil, .sum, .integer(\.previewDecodes), since03: true)
    static let previewDecodeMs = Metric("preview_decode_ms", "ms", .lowerIsBetter, .sum, .real(\.previewDecodeMs), since03: true)
    /// `--resume`: body bytes kept from cancelled transfers and not downloaded again, the loads
    /// that resumed, and range requests the server answered with the whole body.
    static let bytesResumed = Metric("bytes_resumed", "bytes", nil, .sum, .integer(\.bytesResumed), since03: true)
    static let resumedLoads = Metric("resumed_loads", "loads", nil, .sum, .integer(\.resumedLoads), since03: true)
    static let resumesRefused = Metric("resumes_refused", "loads", nil, .sum, .integer(\.resumesRefused), since03: true)
    /// Settle time: from each moment the scroll comes to rest to the frame every visible row shows
    /// its final image; censored rests count at their length.
    static let settleRests = Metric("settle_rests", "rests", nil, .sum, .integer(\.settleRests), since03: true)
    static let settleCensored = Metric("settle_censored", "rests", .lowerIsBetter, .sum, .integer(\.settleCensored), since03: true)
    static let settle = DistributionFamily("settle", \.settle, [.p50, .p95, .mean], since03: true)
    /// Wait at rest: each rest's mean over the rows on screen of their wait for an image from the
    /// moment the scroll stopped (cut at the rest's end); the mean over rests. What the verdict ranks by.
    static let restWait = DistributionFamily("rest_wait", \.restWait, [.mean], since03: true)
    static let filterConcurrencyPeak = Metric("filter_concurrency_peak", "loads", nil, .sum, .integer(\.filterConcurrencyPeak), since03: true)

    /// Every metric, in column order.
    static let catalog: [Metric] = [
        strategy, concurrency, repetition, network, transport, rows, rowsVisited,
        requests, memoryHits, diskHits, networkFetches, merged, memoryHitRate, diskHitRate,
        cancelledQueued, cancelledInflight, bytesDownloaded, bytesSaved, bytesWasted, decodeMsSaved, wastedCompletions,
        prefetchLoads, prefetchCancelled, memoryEvictions, diskWrites, diskDiscarded, errors,
    ] + ErrorClass.allCases.map(errors(of:)) + [
        retries, httpRequests, decodeWarnings, displayed, neverDisplayed,
    ] + display.metrics + placeholder.metrics + ready.metrics + [
        placeholderRatio, hitchMsPerS, mainBusyMsPerS, droppedFrames, hostLateFrames, hostOverloaded, achievedConcurrencyMean, achievedConcurrencyPeak,
        imagesDecoded, imagesPerS, bytesPerS, cpuUserS, cpuSysS, peakRssMb, durationS, partial, imagesLoaded,
        requestsPerS, errorRate,
    ] + ttfb.metrics + request.metrics + [format] + decodeMsPerMp.metrics + [
        networkConcurrencyMean, networkConcurrencyPeak, decodeConcurrencyMean, decodeConcurrencyPeak,
        filterConcurrencyMean, filterConcurrencyPeak,
    ] + firstImage.metrics + [
        previewsShown, previewDecodes, previewDecodeMs, bytesResumed, resumedLoads, resumesRefused, settleRests, settleCensored,
    ] + settle.metrics + restWait.metrics + [
        placeholderRowSecondsPerS, cancel, prefetch, memoryCacheMb, coalesce, diskRead, decodeConcurrency, filter,
        httpErrors, httpErrorsByStatus, httpCancelled,
        wireBytesSent, wireBytesReceived, connectionsOpened, connectionsReused, sessions, http, connectionsPer1000,
    ] + tlsHandshake.metrics

    /// The metrics summarised over repeats (median and 95% interval) in summary-aggregate.csv and
    /// summary.json, in their column order there: the ones people compare and gate on.
    static let aggregated: [Metric] = display.metrics + [
        memoryHitRate, diskHitRate, networkFetches,
        bytesDownloaded, bytesSaved, neverDisplayed, placeholderRatio, hitchMsPerS, mainBusyMsPerS, droppedFrames,
        achievedConcurrencyMean, imagesPerS, cpuUserS, cpuSysS, peakRssMb, durationS,
        placeholder[.p50], placeholder[.p95], placeholder[.mean], ready[.p50], ready[.p95],
    ] + settle.metrics + restWait.metrics + [placeholderRowSecondsPerS]
}
