import Foundation

// Every flag of `imgbench run`, one entry each, in the order `--help` lists them within their
// group and the order they are applied: an entry that reads another flag's text (`--source`
// reads `--rows`, `--images`, `--feed`) comes after it. Adding a flag is adding an entry here and
// the code that uses its setting; parsing, `--help`, completion, `RunArguments` and the recorded
// plan follow from the entry. Rules that join several flags live in `BenchmarkPlan.validate()`.

extension RunFlag {
    /// Every run flag, in help and application order.
    static let catalog: [RunFlag] = workload + pipeline + network + load + measurement + output + testing

    /// A flag by its name without dashes.
    static func named(_ name: String) -> RunFlag? { byName[name] }

    private static let byName = Dictionary(uniqueKeysWithValues: catalog.map { ($0.name, $0) })

    static let workload: [RunFlag] = [
        integer("rows", group: .workload, help: "Rows in the table \(FlagRanges.help(FlagRanges.rows)).", range: FlagRanges.rows,
                default: 5_000, at: \.settings.rows),
        optionalInteger("images", group: .workload,
                        help: "Distinct images in the feed (default: rows/2, at most 2000) \(FlagRanges.help(FlagRanges.images)), at most \(FlagRanges.embeddedImages.upperBound) for the embedded server.",
                        range: nil, rangeText: FlagRanges.help(FlagRanges.images), at: \.settings.imageCount),
        RunFlag("feed", group: .workload,
                help: "How rows pick images: sequential (row i shows entry i, wrapping; the default for a manifest) or zipf (skewed popularity; the default otherwise).",
                completion: .values(FeedOrder.allCases.map(\.rawValue)),
                apply: { text, target throws(PlanError) in if let text { target.plan.settings.feed = try named(text, "--feed") as FeedOrder } },
                words: { plan in plan.settings.feed.map { ["--feed", $0.rawValue] } ?? [] }),
        RunFlag("source", group: .workload,
                help: "Images from elsewhere: a URL template with {id} or {row} (http://host/img/{id}.jpg), a manifest's URL (http://host/manifest.json), or a manifest file (.json, .csv, .plist).",
                completion: .file(extensions: ["json", "csv", "plist"]),
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    // Only the entries the feed can reach are read: a manifest's own order shows
                    // its first `rows`, zipf draws from its first `--images`.
                    let reach = target.plan.settings.manifestReach
                    target.plan.settings.source = try spec { () throws(ImageSource.ParseError) in try ImageSource(parsing: text, manifestLimit: reach) }
                    target.plan.settings.network = .unshaped
                },
                words: { plan in
                    switch plan.settings.source {
                    case .embedded: []
                    case .template(let template): ["--source", template]
                    case .manifest(let path, _), .manifestURL(let path): ["--source", path]
                    }
                }),
        RunFlag("seed", group: .workload, help: "Seed for the trace, the feed, the images and the per-URL delays.", default: "1",
                apply: { text, target throws(PlanError) in
                    guard let seed = UInt64(text ?? "1") else { throw PlanError("--seed: '\(text ?? "")' is not a whole number from 0 to \(UInt64.max)") }
                    target.plan.settings.seed = seed
                },
                words: { plan in ["--seed", String(plan.settings.seed)] }),
        RunFlag("scroll", group: .workload, help: "Scroll profile: \(ScrollProfile.allCases.map(\.rawValue).joined(separator: ", ")).",
                default: ScrollProfile.fling.rawValue, completion: .values(ScrollProfile.allCases.map(\.rawValue)),
                apply: { text, target throws(PlanError) in
                    let text = text ?? ScrollProfile.fling.rawValue
                    // Every cell plays one trace: another profile per cell would compare traces, not policies.
                    if text.contains(",") { throw PlanError("--scroll takes one profile: cells of one run share one trace (run each profile on its own)") }
                    target.plan.settings.scroll = try named(text, "--scroll")
                },
                words: { plan in ["--scroll", plan.settings.scroll.rawValue] }),
        integer("fps", group: .workload, help: "Main-loop frame rate \(FlagRanges.help(FlagRanges.fps)).", range: FlagRanges.fps,
                default: 60, at: \.settings.fps),
        outputToggle("no-corpus-cache", group: .workload,
                     help: "Generate the embedded server's images afresh instead of loading them from $XDG_CACHE_HOME/imgbench (~/.cache/imgbench), where they are kept and verified.") {
            $0.corpusCache = false
        },
    ]

    static let pipeline: [RunFlag] = [
        RunFlag("strategies", group: .pipeline,
                help: "Strategies, comma-separated, or all: \(StrategyKind.allCases.map(\.rawValue).joined(separator: ", ")) (events with --transport multi only).",
                default: StrategyKind.defaults.map(\.rawValue).joined(separator: ","),
                completion: .values(["all"] + StrategyKind.allCases.map(\.rawValue)),
                apply: { text, target throws(PlanError) in
                    let text = text ?? StrategyKind.defaults.map(\.rawValue).joined(separator: ",")
                    // `all`: every strategy the transport can run (`events` needs the multi transport, in every cell).
                    let multiOnly = (target.options["transport"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == ["multi"]
                    target.plan.strategies = text == "all" ? StrategyKind.allCases.filter { $0 != .events || multiOnly }
                        : try RunOptions.list(text, flag: "--strategies").map { item throws(PlanError) in try named(item, "--strategies") }
                },
                words: { plan in ["--strategies", plan.strategies.map(\.rawValue).joined(separator: ",")] }),
        RunFlag("concurrency", group: .pipeline,
                help: "Concurrency limits, comma-separated (each is a matrix column) \(FlagRanges.help(FlagRanges.concurrency)).",
                range: FlagRanges.help(FlagRanges.concurrency), default: "5",
                apply: { text, target throws(PlanError) in
                    target.plan.concurrencies = try RunOptions.list(text ?? "5", flag: "--concurrency").map { item throws(PlanError) in
                        try whole(item, "--concurrency", in: FlagRanges.concurrency)
                    }
                },
                words: { plan in ["--concurrency", plan.concurrencies.map(String.init).joined(separator: ",")] }),
        RunFlag("formats", group: .pipeline,
                help: "Corpus formats, comma-separated (each is a matrix column, the same pictures in each): \(CorpusFormat.all.map(\.description).joined(separator: ", ")). jpeg+png is the default mix; with --source, a URL template with {ext}.",
                default: CorpusFormat.mixed.description, completion: .values(CorpusFormat.all.map(\.description)),
                apply: { text, target throws(PlanError) in
                    target.plan.formats = try RunOptions.list(text ?? CorpusFormat.mixed.description, flag: "--formats").map { item throws(PlanError) in
                        try CorpusFormat(parsing: item)
                    }
                },
                words: { plan in RunArguments.formatFlags(plan) }),
        varied("transport", group: .pipeline,
               help: "HTTP transport: blocking (an easy handle per worker) or multi (curl multi on one thread); a list (blocking,multi) compares them.",
               default: TransportKind.blocking.rawValue, completion: .values(TransportKind.allCases.map(\.rawValue)),
               dimension: namedDimension("transport", label: "transport", flag: "--transport", at: \.transport)),
        varied("filter", group: .pipeline,
               help: "Filter after decoding: \(ImageFilter.allCases.map(\.rawValue).joined(separator: ", ")); a list (none,sepia) compares them.",
               default: ImageFilter.sepia.rawValue, completion: .values(ImageFilter.allCases.map(\.rawValue)),
               dimension: namedDimension("filter", label: "filter", flag: "--filter", at: \.filter)),
        varied("cancel", group: .pipeline,
               help: "What to do with loads of rows that left the screen: \(CancelPolicy.allCases.map(\.rawValue).joined(separator: ", ")); a list (none,offscreen) compares them, each a matrix column.",
               default: CancelPolicy.offscreen.rawValue, completion: .values(CancelPolicy.allCases.map(\.rawValue)),
               dimension: namedDimension("cancel", label: "cancel", flag: "--cancel", at: \.cancelPolicy)),
        varied("coalesce", group: .pipeline,
               help: "Merge loads of the same URL into one fetch and decode: on or off (--coalesce alone is on, --no-coalesce off); a list (on,off) compares them.",
               default: "on", completion: .values(["on", "off"]), bare: "on", inverted: "off",
               dimension: Dimension(column: "coalesce", label: "coalesce", unit: "",
                                    canonical: { text throws(PlanError) in
                                        guard text == "on" || text == "off" else { throw PlanError("--coalesce: unknown value '\(text)' (valid: on, off)") }
                                        return text
                                    },
                                    apply: { value, settings in settings.coalesce = value == "on" },
                                    value: { settings in settings.coalesce ? "on" : "off" }),
               // The switch's spellings, which every build reads.
               say: { value in [value == "on" ? "--coalesce" : "--no-coalesce"] }),
        varied("prefetch", group: .pipeline,
               help: "Rows ahead of the viewport to load at low priority \(FlagRanges.help(FlagRanges.prefetch)); a list (0,10) compares them.",
               range: FlagRanges.help(FlagRanges.prefetch), default: "0",
               dimension: Dimension(column: "prefetch", label: "prefetch", unit: "",
                                    canonical: { text throws(PlanError) in String(try whole(text, "--prefetch", in: FlagRanges.prefetch)) },
                                    apply: { value, settings in settings.prefetch = Int(value) ?? settings.prefetch },
                                    value: { settings in String(settings.prefetch) }, asksMoreWhenLarger: true)),
        varied("decode-concurrency", group: .pipeline,
               help: "Decode on a queue of its own with this many threads \(FlagRanges.help(FlagRanges.stageConcurrency)): a load gives its slot back once its bytes are in (default: off, decode inside the load's slot); a list (off,2) compares them.",
               range: FlagRanges.help(FlagRanges.stageConcurrency), default: "off",
               dimension: Dimension(column: "decode_concurrency", label: "decode-concurrency", unit: "",
                                    canonical: { text throws(PlanError) in
                                        text == "off" ? text : String(try whole(text, "--decode-concurrency", in: FlagRanges.stageConcurrency))
                                    },
                                    apply: { value, settings in settings.decodeConcurrency = Int(value) },
                                    value: { settings in settings.decodeConcurrency.map(String.init) ?? "off" }, asksMoreWhenLarger: true),
               // Off is left unsaid: builds before the list read no "off".
               say: { value in value == "off" ? [] : ["--decode-concurrency", value] }),
        optionalInteger("filter-concurrency", group: .pipeline,
                        help: "Filter on a queue of its own with this many threads \(FlagRanges.help(FlagRanges.stageConcurrency)) (default: where the decode ran).",
                        range: FlagRanges.stageConcurrency, at: \.settings.filterConcurrency),
        toggle("progressive", group: .pipeline,
               help: "Show progressive JPEGs at their first complete scan while they download, then refined (as Nuke and PINRemoteImage do).",
               at: \.settings.progressive),
        toggle("resume", group: .pipeline,
               help: "Keep what cancelled downloads received and ask only for the rest (Range, If-Range) when the image is wanted again.",
               at: \.settings.resume),
        varied("memory-cache-mb", group: .pipeline,
               help: "Memory cache limit in MB (10^6 bytes) of decoded pixels \(FlagRanges.help(FlagRanges.memoryCacheMB)); a list (16,64) compares them.",
               range: FlagRanges.help(FlagRanges.memoryCacheMB), default: String(MemoryCache.defaultCostLimit / 1_000_000),
               dimension: Dimension(column: "memory_cache_mb", label: "memory-cache", unit: "MB",
                                    canonical: { text throws(PlanError) in String(try whole(text, "--memory-cache-mb", in: FlagRanges.memoryCacheMB)) },
                                    apply: { value, settings in
                                        settings.memoryCacheBytes = (Int(value) ?? settings.memoryCacheBytes / 1_000_000) * 1_000_000
                                    },
                                    value: { settings in String(settings.memoryCacheBytes / 1_000_000) }, asksMoreWhenLarger: true)),
        RunFlag("disk-cache", group: .pipeline, help: "Disk cache directory, kept between runs (default: no disk cache).", completion: .directory,
                apply: { text, target throws(PlanError) in if let text { target.plan.settings.diskCacheDirectory = text } },
                words: { plan in plan.settings.diskCacheDirectory.map { ["--disk-cache", $0] } ?? [] }),
        RunFlag("disk-cache-mb", group: .pipeline,
                help: "Disk cache size limit in MB (10^6 bytes) \(FlagRanges.help(FlagRanges.diskCacheMB)).",
                range: FlagRanges.help(FlagRanges.diskCacheMB), default: String(DiskCache.defaultSizeLimit / 1_000_000),
                apply: { text, target throws(PlanError) in
                    // Checked before scaling: a huge number of MB would overflow.
                    target.plan.settings.diskCacheBytes = try whole(text ?? String(DiskCache.defaultSizeLimit / 1_000_000), "--disk-cache-mb",
                                                                    in: FlagRanges.diskCacheMB) * 1_000_000
                },
                words: { plan in ["--disk-cache-mb", String(plan.settings.diskCacheBytes / 1_000_000)] }),
        varied("disk-read", group: .pipeline,
               help: "Where disk cache hits are read and decoded: background or main (inside cellForRow); a list (background,main) compares them.",
               default: DiskReadMode.background.rawValue, completion: .values(DiskReadMode.allCases.map(\.rawValue)),
               dimension: namedDimension("disk_read", label: "disk-read", flag: "--disk-read", at: \.diskRead)),
        integer("max-pixels", group: .pipeline, help: "Refuse images whose header promises more pixels \(FlagRanges.help(FlagRanges.maxPixels)).",
                range: FlagRanges.maxPixels, default: DecodeLimits().maxPixels, at: \.settings.decodeLimits.maxPixels),
        integer("max-decode-mb", group: .pipeline,
                help: "Memory one decode may allocate beyond the cell's image, in MB (10^6 bytes) \(FlagRanges.help(FlagRanges.maxDecodeMB)): full-size bitmaps (interlaced PNG, AVIF, GIF), progressive JPEG coefficients, lossless WebP; an image over it is a too_large error.",
                range: FlagRanges.maxDecodeMB, default: DecodeLimits.defaultMaxDecodeMegabytes, at: \.settings.decodeLimits.maxDecodeMegabytes),
    ]
}
