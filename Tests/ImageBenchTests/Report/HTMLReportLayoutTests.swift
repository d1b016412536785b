import Foundation
import Testing
@testable import ImageBench

/// report.html on constructed runs: charts with nothing to show are said, not drawn; per-second
/// lines break only where a second had no sample; rate and share axes start at 0; the numbers
/// table sits in a box of its own.
@Suite("report.html's layout")
struct HTMLReportLayoutTests {
    /// Every strategy × limit, `repeats` runs each, each run's timeline the given seconds.
    static func results(strategies: [StrategyKind] = [.threads, .gcd], limits: [Int] = [1, 5], repeats: Int = 1,
                        seconds: [Timeline.Interval] = [], change: (StrategyKind, Int, inout RunSummary) -> Void = { _, _, _ in }) -> BenchmarkResults {
        var runs: [RunResult] = []
        for repetition in 1...repeats {
            for strategy in strategies {
                for limit in limits {
                    let base = VerdictTests.run(strategy, limit, mean: 20 + Double(limit), noise: UInt64(repetition)) { change(strategy, limit, &$0) }
                    var run = RunResult(cell: RunCell(strategy: strategy, concurrency: limit, repetition: repetition), summary: base.summary,
                                        requests: base.requests, distributions: base.distributions)
                    run.timeline = Timeline(intervals: seconds)
                    runs.append(run)
                }
            }
        }
        return BenchmarkResults(plan: BenchmarkPlan(settings: RunSettings(), strategies: strategies, concurrencies: limits, repeats: repeats),
                                results: runs, corpusImages: 10, corpusBytes: 1_000, serverURL: "http://127.0.0.1:1",
                                traceSeconds: 1_000.0 / 60, startedAt: Date(), environment: RunEnvironment.capture())
    }

    /// A second with `requests` HTTP requests done, `errors` failed, `users` scrolling, and time to
    /// first byte samples of `ttfb` ms (none: the second had no sample).
    static func second(requests: Int = 50, errors: Int = 0, users: Int = 1, ttfb: [Double] = [30]) -> Timeline.Interval {
        var interval = Timeline.Interval()
        (interval.httpRequests, interval.errors, interval.activeUsers) = (requests, errors, users)
        for ms in ttfb {
            interval.ttfb.record(nanoseconds: UInt64(ms * 1e6))
            interval.request.record(nanoseconds: UInt64(ms * 2e6))
        }
        return interval
    }

    /// The `<svg>` of the chart labelled `label`, if the page drew it.
    static func chart(_ label: String, in html: String) -> String? {
        guard let start = html.range(of: "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"\(label)\""),
              let end = html.range(of: "</svg>", range: start.upperBound..<html.endIndex) else { return nil }
        return String(html[start.lowerBound..<end.upperBound])
    }

    /// Every match of `pattern`'s first group in `text`.
    static func captures(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) }
    }

    @Test("the configuration's command is quoted as a shell reads it back: a User-Agent with spaces is one word")
    func commandQuoted() throws {
        let base = Self.results()
        var plan = base.plan
        plan.settings.fetchLimits.userAgent = "Feed/2.1 (iPhone; iOS 18)"
        let results = BenchmarkResults(plan: plan, results: base.results, corpusImages: 10, corpusBytes: 1_000, serverURL: base.serverURL,
                                       traceSeconds: base.traceSeconds, startedAt: base.startedAt, environment: base.environment)
        let html = try HTMLReport().render(results)
        let cell = try #require(Self.captures("<tr><th>command</th><td>([^<]*)</td>", in: html).first, "no command row")
        let command = cell.replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
        #expect(command.hasPrefix("imgbench run ") && command.contains(" --user-agent 'Feed/2.1 (iPhone; iOS 18)'"), "\(command)")
        // What a shell makes of it is the plan's own words.
        #expect(try ShellWords.split(String(command.dropFirst("imgbench run ".count))) == RunArguments(results.plan).words)
    }

    @Test("all-zero hitch, dropped-frame, host-late and failed-load charts and a constant users-scrolling line are left out, one sentence naming them")
    func leftOut() throws {
        let quiet = Array(repeating: Self.second(), count: 5)
        let html = try HTMLReport().render(Self.results(seconds: quiet))
        for label in ["hitches", "dropped-frames", "host-late", "load-errors", "load-users"] {
            #expect(Self.chart(label, in: html) == nil, "\(label) drawn though it has nothing to show")
        }
        #expect(html.contains("<p class=\"left-out\">No hitches, dropped frames or host-late frames in any cell: their charts are left out.</p>"))
        #expect(html.contains("<p class=\"left-out\">No failed loads in any cell, and users scrolling stayed at 1 in every second of every run: "
                              + "their charts are left out.</p>"), "\(html)")
        // What varies is still drawn, one bar or line per cell.
        #expect(Self.chart("load-rate", in: html).map { Self.captures("class=\"(series)\"", in: $0).count } == 4)
        #expect(Self.chart("placeholder-intervals", in: html) != nil)

        // One cell dropped frames, a second had failed loads, users ramped up: those are drawn,
        // and the sentence names only what is still left out.
        let busy = [Self.second(users: 1), Self.second(errors: 3, users: 2), Self.second(users: 3)]
        let some = try HTMLReport().render(Self.results(seconds: busy) { strategy, limit, summary in
            if strategy == .gcd && limit == 5 { summary.droppedFrames = 3 }
        })
        let dropped = try #require(Self.chart("dropped-frames", in: some))
        #expect(Self.captures("<title>([^<]*)</title>", in: dropped).contains("gcd ×5: 3"), "\(dropped)")
        #expect(Self.chart("hitches", in: some) == nil && Self.chart("host-late", in: some) == nil)
        #expect(some.contains("<p class=\"left-out\">No hitches or host-late frames in any cell: their charts are left out.</p>"))
        #expect(Self.chart("load-errors", in: some) != nil && Self.chart("load-users", in: some) != nil)
        #expect(!some.contains("No failed loads") && !some.contains("users scrolling stayed"))

        #expect(LeftOutCharts(absent: ["failed loads"]).sentence == "No failed loads in any cell: its chart is left out.")
        #expect(LeftOutCharts().html.isEmpty)
    }

    @Test("a per-second series is one line per run, restarted (a second M) after a second with no sample; a lone second is a dot")
    func perSecondGaps() throws {
        // Seconds 0–1 with a first byte, 2 without, 3–5 with; then 6 without, 7 alone, 8 without.
        let seconds = [Self.second(), Self.second(ttfb: [40]), Self.second(ttfb: []), Self.second(ttfb: [35]), Self.second(ttfb: [45]),
                       Self.second(ttfb: [30]), Self.second(ttfb: []), Self.second(ttfb: [50]), Self.second(ttfb: [])]
        let html = try HTMLReport().render(Self.results(strategies: [.threads], limits: [5], seconds: seconds))
        let ttfb = try #require(Self.chart("load-ttfb", in: html))
        let paths = Self.captures("<path class=\"series\"[^>]* d=\"([^\"]*)\"", in: ttfb)
        #expect(paths.count == 1, "one path per run: \(ttfb)")
        let subpaths = paths.first?.split(separator: "M").map { $0.split(separator: "L").count } ?? []
        #expect(subpaths == [2, 3], "seconds 0–1 and 3–5 as two lines: \(paths)")
        #expect(Self.captures("<circle (cx)=", in: ttfb).count == 1, "second 7 alone: \(ttfb)")
        #expect(!ttfb.contains("<polyline"))
        // A series with a value every second (requests done: 0 is a value) is one unbroken line.
        let rate = try #require(Self.chart("load-rate", in: html))
        #expect(Self.captures("<path class=\"series\"[^>]* d=\"([^\"]*)\"", in: rate).map { $0.split(separator: "M").count } == [1])
        #expect(Self.captures("<path class=\"series\"[^>]* d=\"([^\"]*)\"", in: rate).first?.split(separator: "L").count == 9)
    }

    @Test("rate and share axes start at 0: requests per second between 50 and 60, hit rates of 0.2 and 2.2% on a 0–100% axis")
    func axesFromZero() throws {
        let seconds = [50, 55, 60, 52].map { Self.second(requests: $0) }
        let html = try HTMLReport().render(Self.results(seconds: seconds) { _, limit, summary in
            summary.memoryHits = limit == 1 ? 1 : 11
            summary.requests = 500
        })
        let ticks = { (label: String) in Self.chart(label, in: html).map { Self.captures("class=\"tick-y\"[^>]*>([^<]*)<", in: $0) } ?? [] }
        #expect(ticks("load-rate").first == "0" && ticks("load-rate").last.flatMap(Double.init).map { $0 >= 60 } == true, "\(ticks("load-rate"))")
        #expect(ticks("sweep-memory_hit_rate") == ["0%", "25%", "50%", "75%", "100%"], "\(ticks("sweep-memory_hit_rate"))")
        #expect(ticks("sweep-placeholder_mean_ms").first == "0" && ticks("sweep-display_p95_ms").first == "0")
    }

    @Test("the numbers table is in a box that scrolls sideways on its own; the page has a maximum width; charts shrink to it")
    func boxes() throws {
        let html = try HTMLReport().render(Self.results(repeats: 3))
        #expect(html.contains("<div class=\"table-wrap\">\n<table class=\"numbers\">"))
        #expect(html.contains(".table-wrap { max-width: 100%; overflow-x: auto; }"))
        #expect(html.contains("max-width: 1100px; box-sizing: border-box;") && html.contains("svg.chart { max-width: 100%; height: auto; }"))
        // Each chart has a viewBox of its own size, so that shrinking it scales it.
        let svgs = Self.captures("(<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"[^>]*>)", in: html)
        #expect(svgs.count > 5 && svgs.allSatisfy { tag in
            let (width, height) = (Self.captures(" width=\"([0-9.]+)\"", in: tag), Self.captures(" height=\"([0-9.]+)\"", in: tag))
            return width.count == 1 && height.count == 1 && tag.contains("viewBox=\"0 0 \(width[0]) \(height[0])\"")
        }, "\(svgs)")
        // An interval and its n sit under the value, each unbreakable, so the columns can narrow.
        let details = Self.captures("<span class=\"detail\">(.*?)</span></td>", in: html)
        #expect(details.count == 4 * 7, "seven columns with intervals, four cells: \(details)")
        #expect(details.first.map { Self.captures("(<span>[^<]*</span>)", in: $0).count } == 2, "\(details)")
        #expect(details.allSatisfy { $0.contains("<span>[") && $0.contains("–") }, "\(details)")
    }
}

extension ChildProcessRuns {
    /// The page laid out by Chromium at the widths of a laptop and a desktop window.
    @Suite("report.html's width in headless Chromium")
    struct HTMLReportWidthTests {
        @Test("at 1100 and 1400 px the page does not scroll sideways and the numbers table (3 repeats, 6 cells) fits its box")
        func fits() async throws {
            let chromium = try #require(HTMLReportTests.chromium, "chromium is not installed (scripts/setup --test installs it)")
            // Measured on a thread of its own (Chromium is waited for), judged here, in the test.
            let measured = try await onOwnThread { try Self.measure(chromium: chromium) }
            for (width, numbers) in measured.sorted(by: { $0.key < $1.key }) {
                try #require(numbers.count == 4, "\(width) px: nothing measured")
                #expect(numbers[0] <= numbers[1], "\(width) px: the page is \(numbers[0]) px wide in a \(numbers[1]) px window")
                #expect(numbers[1] > width - 40, "\(width) px: the window laid out at \(numbers[1]) px")
                #expect(numbers[2] <= numbers[3], "\(width) px: the numbers table is \(numbers[2]) px in its \(numbers[3]) px box")
            }
            #expect(measured.keys.sorted() == [1100, 1400])
        }

        /// For each window width: the page's scroll width and the window's, the numbers table
        /// box's scroll width and its own.
        static func measure(chromium: String) throws -> [Int: [Int]] {
            let directory = try Fixtures.temporaryDirectory("html-width")
            defer { try? FileManager.default.removeItem(at: directory) }
            let results = HTMLReportLayoutTests.results(strategies: [.operationQueue, .gcd, .threads], limits: [3, 6], repeats: 3)
            // The page, and a script that writes what it measured into the page, for --dump-dom.
            let measure = """
                <script>window.addEventListener("load", () => { const d = document.documentElement, box = document.querySelector(".table-wrap");
                const p = document.createElement("pre"); p.id = "measured";
                p.textContent = [d.scrollWidth, d.clientWidth, box.scrollWidth, box.clientWidth].join(" "); document.body.appendChild(p); });</script></body>
                """
            let page = directory.appendingPathComponent("report.html")
            try HTMLReport().render(results).replacingOccurrences(of: "</body>", with: measure).write(to: page, atomically: true, encoding: .utf8)
            var measured: [Int: [Int]] = [:]
            for width in [1100, 1400] {
                let dom = try dumpedDOM(page, chromium: chromium, profile: directory.appendingPathComponent("profile"), width: width)
                measured[width] = HTMLReportLayoutTests.captures("<pre id=\"measured\">([0-9 ]+)</pre>", in: dom).first?
                    .split(separator: " ").compactMap { Int($0) } ?? []
            }
            return measured
        }

        /// The page as headless Chromium laid it out and ran its scripts, with no network.
        static func dumpedDOM(_ page: URL, chromium: String, profile: URL, width: Int) throws -> String {
            let browser = Process()
            browser.executableURL = URL(fileURLWithPath: chromium)
            browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND",
                                 "--user-data-dir=\(profile.path)", "--window-size=\(width),900",
                                 "--virtual-time-budget=2000", "--dump-dom", page.absoluteString]
            let output = Pipe()
            browser.standardOutput = output
            browser.standardError = FileHandle.nullDevice
            try browser.run()
            let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            browser.waitUntilExit()
            return dom
        }
    }
}
