import Foundation

/// `imgbench corpus --out DIR`: the generated corpus as files any server can serve (nginx, a CDN
/// bucket), with manifests for `--source`. Images go under `img/`, named by id and format
/// (`img/42.jpg`, `img/7.png`): the paths the embedded server serves, so one URL template
/// (`--source http://host/img/{id}.jpg`, for a JPEG-only corpus) reaches either.
public enum CorpusExport {
    public struct Written: Sendable, Equatable {
        public let files: Int
        public let bytes: Int
    }

    /// Several formats' corpora in one folder (`imgbench corpus --formats`): every format's
    /// images side by side (`img/7.jpg`, `img/7.webp`, …, reached by `--source
    /// http://host/img/{id}.{ext} --formats …`), the first format's manifests as `manifest.json`
    /// and `manifest.csv`, and with several formats each one's as `manifest-<format>.json/.csv`.
    public static func write(_ corpora: [(format: CorpusFormat, corpus: ImageCorpus)], to directory: URL,
                             baseURL: String) throws -> Written {
        var files = 0, bytes = 0
        var written = Set<String>()
        for (index, entry) in corpora.enumerated() {
            let suffix = corpora.count > 1 ? "-\(entry.format)" : ""
            // The mix's JPEGs are the JPEG corpus's files, byte for byte: written and counted once.
            let new = entry.corpus.images.filter { written.insert($0.path).inserted }
            _ = try write(entry.corpus, to: directory, baseURL: baseURL, manifestSuffix: suffix, only: Set(new.map(\.path)))
            if index == 0 && corpora.count > 1 {
                _ = try write(entry.corpus, to: directory, baseURL: baseURL, manifestSuffix: "", only: [])
            }
            files += new.count
            bytes += new.reduce(0) { $0 + $1.bytes.count }
        }
        return Written(files: files, bytes: bytes)
    }

    /// Writes every image, `manifest.json` (an array of `{"url", "bytes"}`) and `manifest.csv`
    /// (`url,bytes`), the URLs under `baseURL`.
    static func write(_ corpus: ImageCorpus, to directory: URL, baseURL: String) throws -> Written {
        try write(corpus, to: directory, baseURL: baseURL, manifestSuffix: "")
    }

    /// `only`: the images whose files to write (nil: all); the manifests list every image.
    static func write(_ corpus: ImageCorpus, to directory: URL, baseURL: String, manifestSuffix: String,
                      only: Set<String>? = nil) throws -> Written {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("img"), withIntermediateDirectories: true)
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        var entries: [[String: Any]] = []
        var csv = CSVTable(header: ["url", "bytes"])
        for image in corpus.images {
            let name = fileName(image)
            if only?.contains(name) ?? true { try Data(image.bytes).write(to: directory.appendingPathComponent(name), options: .atomic) }
            entries.append(["url": "\(base)/\(name)", "bytes": image.bytes.count])
            csv.append(["\(base)/\(name)", String(image.bytes.count)])
        }
        let json = try JSONSerialization.data(withJSONObject: entries, options: [.prettyPrinted, .sortedKeys])
        try json.write(to: directory.appendingPathComponent("manifest\(manifestSuffix).json"), options: .atomic)
        try csv.rendered.write(to: directory.appendingPathComponent("manifest\(manifestSuffix).csv"), atomically: true, encoding: .utf8)
        return Written(files: corpus.images.count, bytes: corpus.totalBytes)
    }

    /// Removes what an earlier corpus left in `directory` that these corpora did not write: images
    /// named as a corpus names them (`img/<id>.<ext>`) and manifests (`manifest*.json`, `.csv`).
    /// Nothing else is touched: a folder may hold the user's own files beside a corpus.
    public static func removeStale(in directory: URL, keeping corpora: [(format: CorpusFormat, corpus: ImageCorpus)]) throws {
        let kept = Set(corpora.flatMap { $0.corpus.images.map { fileName($0) } })
        let manifests = Set(["manifest.json", "manifest.csv"] + (corpora.count > 1
            ? corpora.flatMap { ["manifest-\($0.format).json", "manifest-\($0.format).csv"] } : []))
        let extensions: Set = ["jpg", "png", "webp", "avif", "gif"]
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: directory.appendingPathComponent("img").path)) ?? [] {
            let parts = name.split(separator: ".")
            guard parts.count == 2, parts[0].allSatisfy(\.isNumber), extensions.contains(String(parts[1])), !kept.contains("img/" + name) else { continue }
            try fileManager.removeItem(at: directory.appendingPathComponent("img").appendingPathComponent(name))
        }
        for name in (try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasPrefix("manifest") && (name.hasSuffix(".json") || name.hasSuffix(".csv")) && !manifests.contains(name) {
            try fileManager.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Its path in the folder, the embedded server's path: `img/42.jpg`.
    static func fileName(_ image: CorpusImage) -> String { image.path }
}
