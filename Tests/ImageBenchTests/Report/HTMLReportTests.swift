import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// report.html of a real run: well-formed, self-contained, and drawn by a real browser.
    @Suite("HTML report in headless Chromium")
    struct HTMLReportTests {
        static var chromium: String? {
            ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        @Test("report.html: self-contained; verdict, numbers with intervals and n, whiskers, distinct colours, round ticks, legends off the lines; Chromium draws it")
        func rendered() async throws {
            let chromium = try #require(Self.chromium, "chromium is not installed (scripts/setup --test installs it)")
            try await onOwnThread { try Self.renderedBlocking(chromium: chromium) }
        }

        static func renderedBlocking(chromium: String) throws {
            let directory = try Fixtures.temporaryDirectory("html-report")
            defer { try? FileManager.default.removeItem(at: directory) }
            let results = directory.appendingPathComponent("results")
            let run = try Fixtures.imgbench(["--rows", "300", "--images", "60", "--strategies", "threads,gcd", "--concurrency", "1,4",
                                             "--network", "loopback", "--quiet", "--out", results.path])
            try #require(run.status == 0, "\(run.output)")
            let page = results.appendingPathComponent("report.html")

            // Well-formed (an XML parser reads it whole) and self-contained (no src or href at all);
            // then what each chart holds, read from the SVG itself.
            let structure = try runPython("""
            import sys, json, math, re, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            cls = lambda e: (e.get("class") or "").split()
            external = [e.tag for e in root.iter() if any(k in e.attrib for k in ("src", "href"))]
            charts, colours, whiskers, overlaps, ticks = {}, {}, {}, [], {}
            for svg in (e for e in root.iter() if e.tag.endswith("svg") and e.get("data-chart")):
                name = svg.get("data-chart")
                series = [x for x in svg.iter() if "series" in cls(x)]
                charts[name] = len(series)
                pairs = {}
                for x in series:
                    colour = x.get("stroke") if x.get("fill") in (None, "none") else x.get("fill")
                    pairs.setdefault(x.get("data-series"), set()).add(colour)
                colours[name] = {k: sorted(v) for k, v in pairs.items()}
                whiskers[name] = len([x for x in svg.iter() if "whisker" in cls(x)])
                plot = next((x for x in svg.iter() if "plot" in cls(x)), None)
                legend = next((x for x in svg.iter() if "legend" in cls(x)), None)
                if plot is not None and legend is not None:
                    bottom = float(plot.get("y")) + float(plot.get("height"))
                    tops = [float(x.get("y")) for x in legend.iter() if x.get("y") is not None]
                    if min(tops) < bottom: overlaps.append(name)
                labels = [x.text for x in svg.iter() if "tick-y" in cls(x)]
                if name.startswith("sweep") or name == "timeline-overview":
                    values = [float(re.sub("[^0-9.-]", "", t)) for t in labels]
                    steps = {round(b - a, 9) for a, b in zip(values, values[1:])}
                    step = steps.pop() if len(steps) == 1 else None
                    ticks[name] = step is not None and round(step / 10 ** math.floor(math.log10(step)), 6) in (1, 2, 2.5, 5) \\
                        and all(abs(v / step - round(v / step)) < 1e-6 for v in values)
            verdict = "".join(next(e for e in root.iter() if e.get("class") == "verdict").itertext())
            rows = ["".join(r.itertext()) for r in root.iter() if r.tag == "tr" and r.get("class") == "cell"]
            left_out = " ".join("".join(e.itertext()) for e in root.iter() if e.get("class") == "left-out")
            print(json.dumps({"external": external, "charts": charts, "colours": colours, "whiskers": whiskers,
                              "overlaps": overlaps, "ticks": ticks, "verdict": verdict, "rows": rows, "leftOut": left_out}))
            """, arguments: [page.path])
            let parsed = try JSONSerialization.jsonObject(with: Data(structure.utf8)) as! [String: Any]
            #expect((parsed["external"] as? [Any])?.isEmpty == true, "\(structure)")
            let charts = parsed["charts"] as? [String: Int] ?? [:]
            #expect(charts["latency-cdf"] == 4)  // one curve per strategy × limit
            for sweep in ["sweep-placeholder_mean_ms", "sweep-display_p95_ms", "sweep-memory_hit_rate", "sweep-bytes_downloaded"] {
                #expect(charts[sweep] == 2, "\(sweep): one line per strategy")
            }
            #expect(charts["placeholder-intervals"] == 4)
            // A chart of what no run had is left out, and the sentence saying so names it.
            let leftOut = parsed["leftOut"] as? String ?? ""
            for (perCell, name) in [("hitches", "hitches"), ("dropped-frames", "dropped frames"), ("host-late", "host-late frames"), ("load-errors", "failed loads")] {
                #expect(charts[perCell] == 4 || (charts[perCell] == nil && leftOut.contains(name)), "\(perCell): \(charts), \(leftOut)")
            }
            #expect(charts["load-rate"] == 4 && charts["load-ttfb"] == 4 && charts["load-request"] == 4, "load over time: one line per cell, \(charts)")
            // One user scrolled throughout: said, not drawn.
            #expect(charts["load-users"] == nil && leftOut.contains("users scrolling stayed at 1 in every second of every run"), "\(leftOut)")
            #expect((charts["sources"] ?? 0) >= 8 && (charts["timeline"] ?? 0) >= 2 && charts["timeline-overview"] == 1, "\(charts)")
            // One colour per series, and no two series of a chart share one; a series keeps its
            // colour from chart to chart.
            let colours = parsed["colours"] as? [String: [String: [String]]] ?? [:]
            var everywhere: [String: Set<String>] = [:]
            for (chart, series) in colours {
                #expect(series.values.allSatisfy { $0.count == 1 }, "\(chart): a series in two colours: \(series)")
                let used = series.values.compactMap(\.first)
                #expect(Set(used).count == used.count, "\(chart): two series share a colour: \(series)")
                for (name, colour) in series { everywhere[name, default: []].formUnion(colour) }
            }
            #expect(everywhere.values.allSatisfy { $0.count == 1 }, "\(everywhere)")
            // The verdict opens the page; the numbers table has every cell with its interval and n.
            let openings = ["Recommended: ", "No difference beyond noise between ", "Undecided: ", "Measured: ", "Verdict: could not measure"]
            #expect(openings.contains { (parsed["verdict"] as? String)?.hasPrefix($0) == true }, "\(parsed["verdict"] ?? "")")
            let rows = parsed["rows"] as? [String] ?? []
            #expect(rows.count == 4 && rows.allSatisfy { $0.contains("[") && $0.contains("(") }, "\(rows)")
            // Intervals exist (20 trace segments each), so each cell's whisker is drawn.
            #expect((parsed["whiskers"] as? [String: Int])?["placeholder-intervals"] == 4, "\(parsed["whiskers"] ?? "")")
            #expect((parsed["overlaps"] as? [String])?.isEmpty == true, "legends over a plot: \(parsed["overlaps"] ?? "")")
            let ticks = parsed["ticks"] as? [String: Bool] ?? [:]
            #expect(ticks.count == 5 && ticks.values.allSatisfy { $0 }, "ticks not at round values: \(ticks)")

            // Chromium, offline (every host unresolvable), renders it to a PNG.
            let screenshot = directory.appendingPathComponent("report.png")
            let browser = Process()
            browser.executableURL = URL(fileURLWithPath: chromium)
            browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                                 "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
                                 "--window-size=1150,5200", "--screenshot=\(screenshot.path)", page.absoluteString]
            browser.standardOutput = FileHandle.nullDevice
            browser.standardError = FileHandle.nullDevice
            try browser.run()
            browser.waitUntilExit()
            let png = try [UInt8](Data(contentsOf: screenshot))
            let image = try PNGDecoder().decode(png, targetSize: nil, limits: DecodeLimits())
            #expect(image.width == 1150 && image.height == 5200)
            // Each series colour is on the page in quantity: the lines, bars and marks were drawn.
            let names = ["threads", "gcd", "memory", "placeholder"]
            let drawn: [[Int]] = [[0x2C, 0xA0, 0x2C], [0xFF, 0x7F, 0x0E], [0x17, 0xBE, 0xCF], [0xE7, 0xBA, 0x52]]
            var counts = [Int](repeating: 0, count: drawn.count)
            let pixels = image.pixels
            for offset in stride(from: 0, to: pixels.count, by: 4) {
                let (red, green, blue) = (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
                for index in drawn.indices {
                    let colour = drawn[index]
                    if abs(red - colour[0]) < 12 && abs(green - colour[1]) < 12 && abs(blue - colour[2]) < 12 { counts[index] += 1 }
                }
            }
            #expect(counts.allSatisfy { $0 > 300 }, "series pixels \(names): \(counts)")
            // The page is not blank below the fold: the timeline and the table were drawn too.
            let lowerHalf = image.pixels[(image.pixels.count / 2)...]
            #expect(stride(from: lowerHalf.startIndex, to: lowerHalf.endIndex, by: 4).contains { lowerHalf[$0] < 100 })
        }
    }
}
