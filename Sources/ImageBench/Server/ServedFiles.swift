import Foundation
import NIOCore

/// The files a server answers with, by URL path.
public struct ServedFiles: Sendable {
    struct File: Sendable {
        let body: ByteBuffer
        let contentType: String
        /// Sent with every answer, and what `If-Range` must name for a range to be honoured.
        /// Worked out here, before serving: on first request it would lengthen that request's
        /// time to first byte, in the first run only.
        let etag: String

        init(body: ByteBuffer, contentType: String) {
            self.body = body
            self.contentType = contentType
            etag = ByteRange.etag(of: body.readableBytesView)
        }
    }

    let files: [String: File]

    public init(corpus: ImageCorpus) {
        self.init(corpora: [corpus])
    }

    /// Several formats' corpora at once (`--formats`): their paths differ by extension, and
    /// where two share a path (the mix's JPEGs and the JPEG corpus's) the bytes are the same.
    init(corpora: [ImageCorpus]) {
        var files: [String: File] = [:]
        for image in corpora.flatMap(\.images) where files["/" + image.path] == nil {
            files["/" + image.path] = File(body: ByteBuffer(bytes: image.bytes), contentType: image.format.mimeType)
        }
        self.files = files
    }

    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The files of a folder (`imgbench serve --corpus DIR`), at their paths under it, each with
    /// the content type its bytes say (not its name). Hidden files are skipped.
    public init(directory: URL) throws(LoadError) {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey],
                                                              options: [.skipsHiddenFiles]) else {
            throw LoadError(description: "\(directory.path) is not a readable directory")
        }
        let root = directory.standardizedFileURL.resolvingSymlinksInPath().path
        var files: [String: File] = [:]
        for case let url as URL in enumerator {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                  let data = FileManager.default.contents(atPath: url.path) else { continue }
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard path.hasPrefix(root) else { continue }
            let format = ImageFormat(sniffing: data)
            files[String(path.dropFirst(root.count))] = File(body: ByteBuffer(bytes: data),
                                                              contentType: format == .unknown ? "application/octet-stream" : format.mimeType)
        }
        guard !files.isEmpty else { throw LoadError(description: "\(directory.path) has no files to serve") }
        self.files = files
    }

    /// The served paths, sorted.
    var paths: [String] { files.keys.sorted() }

    /// The served images (files whose bytes are an image format), by path, with their sizes.
    var images: [(path: String, bytes: Int)] {
        files.filter { $0.value.contentType.hasPrefix("image/") }.map { ($0.key, $0.value.body.readableBytes) }.sorted { $0.path < $1.path }
    }

    public var count: Int { files.count }
}
