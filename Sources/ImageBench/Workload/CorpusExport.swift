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

    /// Writes every image, `manifest.json` (an array of `{"url", "bytes"}`) and `manifest.csv`
    /// (`url,bytes`), the URLs under `baseURL`.
    public static func write(_ corpus: ImageCorpus, to directory: URL, baseURL: String) throws -> Written {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("img"), withIntermediateDirectories: true)
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        var entries: [[String: Any]] = []
        var csv = CSVTable(header: ["url", "bytes"])
        for image in corpus.images {
            let name = fileName(image)
            try Data(image.bytes).write(to: directory.appendingPathComponent(name), options: .atomic)
            entries.append(["url": "\(base)/\(name)", "bytes": image.bytes.count])
            csv.append(["\(base)/\(name)", String(image.bytes.count)])
        }
        let json = try JSONSerialization.data(withJSONObject: entries, options: [.prettyPrinted, .sortedKeys])
        try json.write(to: directory.appendingPathComponent("manifest.json"), options: .atomic)
        try csv.rendered.write(to: directory.appendingPathComponent("manifest.csv"), atomically: true, encoding: .utf8)
        return Written(files: corpus.images.count, bytes: corpus.totalBytes)
    }

    /// Its path in the folder, the embedded server's path: `img/42.jpg`.
    public static func fileName(_ image: CorpusImage) -> String { image.path }
}
