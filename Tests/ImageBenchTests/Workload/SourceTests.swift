import Foundation
import Testing
@testable import ImageBench

@Suite("Sources: URL templates and manifests")
struct SourceTests {
    static func parse(_ text: String, name: String) throws(Manifest.ParseError) -> [ManifestEntry] {
        try Manifest.parse(Data(text.utf8), name: name)
    }

    @Test("JSON, CSV and plist manifests give their URLs and sizes, in order")
    func formats() throws {
        let json = try Self.parse(#"["http://h/a.jpg", {"url": "https://h/b.png", "bytes": 12}, {"url": "http://h/c.jpg", "size": 7}]"#,
                                  name: "m.json")
        #expect(json == [ManifestEntry(url: "http://h/a.jpg"), ManifestEntry(url: "https://h/b.png", bytes: 12),
                         ManifestEntry(url: "http://h/c.jpg", bytes: 7)])
        let csv = try Self.parse("name,URL,size\r\na,http://h/a.jpg,10\r\n\r\nb,\"http://h/b,1.jpg\",\n", name: "m.csv")
        #expect(csv == [ManifestEntry(url: "http://h/a.jpg", bytes: 10), ManifestEntry(url: "http://h/b,1.jpg")])
        let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <array>
            <string>http://h/a.jpg</string>
            <dict><key>url</key><string>http://h/b.jpg</string><key>name</key><string>Bee</string></dict>
        </array>
        </plist>
        """
        #expect(try Self.parse(plist, name: "apps.plist") == [ManifestEntry(url: "http://h/a.jpg"), ManifestEntry(url: "http://h/b.jpg")])
    }

    @Test("a bad manifest names the file and the line")
    func errors() {
        func message(_ text: String, _ name: String) -> String {
            do {
                _ = try Self.parse(text, name: name)
                return "parsed"
            } catch {
                return error.description
            }
        }
        #expect(message("url\nhttp://h/a.jpg\nnot a url\n", "m.csv").hasPrefix("m.csv:3: not an http(s) URL"))
        #expect(message("image,size\nhttp://h/a.jpg,1\n", "m.csv").hasPrefix("m.csv:1: the CSV header has no url column"))
        #expect(message("url,size\nhttp://h/a.jpg,big\n", "m.csv").hasPrefix("m.csv:2: the size is not a whole number"))
        // Hostile sizes: past Int64 when summed, or past any real image, are refused by line.
        #expect(message("url,size\nhttp://h/a.jpg,9000000000000000000\n", "m.csv").hasPrefix("m.csv:2: the size is not a whole number"))
        #expect(message("[{\"url\": \"http://h/a.jpg\", \"bytes\": 9000000000000000000}]", "m.json").hasPrefix("m.json:1: size is not a whole number"))
        // A file that is no manifest: its words are never quoted back.
        let shadow = message("root:$6$secret:19000:0:99999:7:::\n", "shadow")
        #expect(shadow.hasPrefix("shadow:1: the CSV header has no url column") && !shadow.contains("secret"))
        #expect(message("[\n  \"http://h/a.jpg\",\n  \"ftp://h/b.jpg\"\n]", "m.json").hasPrefix("m.json:3: not an http(s) URL"))
        #expect(message("[\n  \"http://h/a.jpg\",\n  \"http://h/b.jpg\"\n  \"x\"\n]", "m.json").hasPrefix("m.json:4: not valid JSON"))
        #expect(message("[]", "m.json") == "m.json: the manifest lists no URLs")
    }

    @Test("100,000 entries in every manifest format load whole, and a bad last one is still found by its line")
    func largeManifests() throws {
        let urls = (0..<100_000).map { "http://h/img/\($0).jpg" }
        let json = "[\n" + urls.map { "  {\"url\": \"\($0)\", \"bytes\": 1000}" }.joined(separator: ",\n") + "\n]\n"
        let csv = "url,bytes\n" + urls.map { "\($0),1000" }.joined(separator: "\n") + "\n"
        let plist = try PropertyListSerialization.data(fromPropertyList: urls, format: .xml, options: 0)
        for (name, data) in [("big.json", Data(json.utf8)), ("big.csv", Data(csv.utf8)), ("big.plist", plist)] {
            let entries = try Manifest.parse(data, name: name)
            #expect(entries.count == 100_000 && entries.last?.url == "http://h/img/99999.jpg", "\(name)")
        }
        // Where it is wrong, the line is still worked out (only there).
        let broken = json.replacingOccurrences(of: "http://h/img/99999.jpg", with: "ftp://h/img/99999.jpg")
        #expect(throws: Manifest.ParseError(description: "big.json:100001: not an http(s) URL")) {
            try Manifest.parse(Data(broken.utf8), name: "big.json")
        }
    }

    @Test("templates need {id} or {row} and an http(s) URL; a missing file is named")
    func templates() throws {
        #expect(try ImageSource(parsing: "http://h:8080/img/{id}.jpg") == .template("http://h:8080/img/{id}.jpg"))
        // A URL without {id} or {row} is a manifest's, fetched when the run prepares.
        #expect(try ImageSource(parsing: "http://h:8080/manifest.json") == .manifestURL("http://h:8080/manifest.json"))
        #expect(throws: ImageSource.ParseError.self) { try ImageSource(parsing: "ftp://h/{id}.jpg") }
        #expect(throws: ImageSource.ParseError.self) { try ImageSource(parsing: "/nonexistent/manifest.json") }
        var settings = RunSettings()
        settings.rows = 50
        settings.source = .template("http://h/{row}.jpg")
        let perRow = Benchmark.makeWorkload(settings: settings)
        #expect(perRow.images.count == 50 && perRow.feed.imageForRow == Array(0..<50) && perRow.images[7].url == "http://h/7.jpg")
        settings.source = .template("http://h/{id}.jpg")
        settings.imageCount = 10
        let skewed = Benchmark.makeWorkload(settings: settings)
        #expect(skewed.images.count == 10 && Set(skewed.feed.imageForRow).isSubset(of: Set(0..<10)) && skewed.images[3].url == "http://h/3.jpg")
    }

    @Test("a manifest is the user's feed: row i shows entry i, wrapping; --feed zipf imposes popularity")
    func manifestOrder() throws {
        var settings = RunSettings()
        settings.rows = 27
        settings.source = .manifest(path: "feed.json", entries: (0..<27).map { ManifestEntry(url: "http://h/\($0).jpg") })
        #expect(settings.feedOrder == .sequential)
        #expect(Benchmark.makeWorkload(settings: settings).feed.imageForRow == Array(0..<27), "every entry, in order")
        settings.rows = 60
        #expect(Benchmark.makeWorkload(settings: settings).feed.imageForRow == (0..<60).map { $0 % 27 })
        settings.feed = .zipf
        let skewed = Benchmark.makeWorkload(settings: settings).feed.imageForRow
        #expect(Set(skewed).count < 27, "with popularity some entries recur and others are never asked for")
        settings.source = .template("http://h/{row}.jpg")
        var plan = BenchmarkPlan(settings: settings, strategies: [.threads], concurrencies: [1], repeats: 1, warmups: 0, warmupSeconds: 0)
        #expect(throws: PlanError("--feed: a {row} template gives every row its own image")) { try plan.validate() }
        plan.settings.source = .template("http://h/{id}.jpg")
        #expect(plan.settings.feedOrder == .zipf)
        plan.settings.feed = nil
        #expect(plan.settings.feedOrder == .zipf, "generated images and {id} templates recur by default")
    }

    @Test("a manifest URL as --source: fetched from imgbench's own server, kept as its entries")
    func manifestURL() async throws {
        try await onOwnThread {
            let corpus = ImageCorpus.generate(count: 9, seed: 2)
            let server = try ImageServer(files: ServedFiles(corpus: corpus), profile: .unshaped, seed: 1)
            defer { server.shutdown() }
            let source = try Benchmark.fetchManifest("\(server.baseURL)/manifest.json", limits: FetchLimits())
            guard case .manifest(let path, let entries) = source else { Issue.record("\(source)"); return }
            #expect(path == "\(server.baseURL)/manifest.json")
            #expect(Set(entries.map(\.url)) == Set(corpus.images.map { "\(server.baseURL)/\($0.path)" }))
            #expect(entries.allSatisfy { entry in corpus.images.contains { "\(server.baseURL)/\($0.path)" == entry.url && $0.bytes.count == entry.bytes } })
            #expect(throws: BenchmarkError.self) { try Benchmark.fetchManifest("\(server.baseURL)/img/0.jpg", limits: FetchLimits()) }
        }
    }
}
