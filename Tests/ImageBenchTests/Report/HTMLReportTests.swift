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

        @Test("report.html parses, references nothing outside itself, has its charts and series, and Chromium draws them")
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

            // Well-formed (an XML parser reads it whole) and self-contained (no src or href at all).
            let structure = try runPython("""
            import sys, json, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            external = [e.tag for e in root.iter() if any(k in e.attrib for k in ("src", "href"))]
            charts = {e.get("data-chart"): len([x for x in e.iter() if x.get("class") == "series"])
                      for e in root.iter() if e.tag.endswith("svg")}
            print(json.dumps({"external": external, "charts": charts}))
            """, arguments: [page.path])
            let parsed = try JSONSerialization.jsonObject(with: Data(structure.utf8)) as! [String: Any]
            #expect((parsed["external"] as? [Any])?.isEmpty == true, "\(structure)")
            let charts = parsed["charts"] as? [String: Int] ?? [:]
            #expect(charts["latency-cdf"] == 4)  // one curve per strategy × limit
            #expect(charts["sweep-latency_p95_ms"] == 2 && charts["sweep-memory_hit_rate"] == 2 && charts["sweep-bytes_downloaded"] == 2)
            #expect((charts["sources"] ?? 0) >= 8 && (charts["timeline"] ?? 0) >= 2, "\(charts)")

            // Chromium, offline (every host unresolvable), renders it to a PNG.
            let screenshot = directory.appendingPathComponent("report.png")
            let browser = Process()
            browser.executableURL = URL(fileURLWithPath: chromium)
            browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                                 "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
                                 "--window-size=1150,2300", "--screenshot=\(screenshot.path)", page.absoluteString]
            browser.standardOutput = FileHandle.nullDevice
            browser.standardError = FileHandle.nullDevice
            try browser.run()
            browser.waitUntilExit()
            let png = try [UInt8](Data(contentsOf: screenshot))
            let image = try PNGDecoder().decode(png, targetSize: nil, limits: DecodeLimits())
            #expect(image.width == 1150 && image.height == 2300)
            // Each series colour is on the page in quantity: the curves, lines and bars were drawn.
            var counts = [Int](repeating: 0, count: 4)
            let colours: [[Int]] = [[0x1F, 0x77, 0xB4], [0xD6, 0x27, 0x28], [0x2C, 0xA0, 0x2C], [0xFF, 0x7F, 0x0E]]
            let pixels = image.pixels
            for offset in stride(from: 0, to: pixels.count, by: 4) {
                let (red, green, blue) = (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
                for index in colours.indices {
                    let colour = colours[index]
                    if abs(red - colour[0]) < 12 && abs(green - colour[1]) < 12 && abs(blue - colour[2]) < 12 { counts[index] += 1 }
                }
            }
            #expect(counts.allSatisfy { $0 > 300 }, "series pixels blue, red, green, orange: \(counts)")
            // The page is not blank below the fold: the timeline and the table were drawn too.
            let lowerHalf = image.pixels[(image.pixels.count / 2)...]
            #expect(stride(from: lowerHalf.startIndex, to: lowerHalf.endIndex, by: 4).contains { lowerHalf[$0] < 100 })
        }
    }
}
