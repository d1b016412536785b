import Foundation

/// `imgbench corpus --out DIR`: the generated corpus as files any server can serve (nginx, a CDN
/// bucket), with manifests for `--source`. Files are flat, named by id and format (`42.jpg`,
/// `7.png`), so `--source http://host/{id}.jpg` works for a JPEG-only corpus.
public enum CorpusExport {
    public struct Written: Sendable, Equatable {
        public let files: Int
        public let bytes: Int
    }

    /// Writes every image, `manifest.json` (an array of `{"url", "bytes"}`) and `manifest.csv`
    /// (`url,bytes`), the URLs under `baseURL`.
    public static func write(_ corpus: ImageCorpus, to directory: URL, baseURL: String) throws -> Written {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
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

    public static func fileName(_ image: CorpusImage) -> String { "\(image.id).\(image.format.fileExtension)" }
}
