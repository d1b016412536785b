import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// `imgbench corpus --formats` served by nginx and read through `--source …/{id}.{ext}
    /// --formats`, against the embedded server's run of the same formats.
    @Suite("Formats on nginx, through --source", .serialized)
    struct FormatSourceTests {
        /// Per format, per image: the bytes downloaded and the decoded size, from requests.csv.
        static func decoded(_ directory: URL) throws -> [String: [Int: [Int]]] {
            let rows = CSVTable.parse(try String(contentsOf: directory.appendingPathComponent("requests.csv"), encoding: .utf8))
            let header = rows[0]
            var images: [String: [Int: [Int]]] = [:]
            for fields in rows.dropFirst() where fields.count == header.count {
                let row = Dictionary(uniqueKeysWithValues: zip(header, fields))
                guard row["source"] == "network", row["outcome"] == "displayed", let image = row["image"].flatMap(Int.init),
                      let bytes = row["bytes"].flatMap(Int.init), let width = row["image_width"].flatMap(Int.init),
                      let height = row["image_height"].flatMap(Int.init), let format = row["format"] else { continue }
                images[format, default: [:]][image] = [bytes, width, height]
            }
            return images
        }

        @Test("imgbench corpus --formats jpeg,webp,avif on nginx decodes per format as the embedded server's files do")
        func formatsOnNginx() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("formats-nginx")
                defer { try? FileManager.default.removeItem(at: root) }
                let port = try Nginx.freePort()
                let corpus = root.appendingPathComponent("corpus")
                let written = try Fixtures.imgbench(["corpus", "--out", corpus.path, "--images", "30", "--formats", "jpeg,webp,avif",
                                                     "--base-url", "http://127.0.0.1:\(port)"])
                try #require(written.status == 0, "\(written.output)")
                let nginx = try Nginx(root: corpus, port: port)
                defer { nginx.stop() }
                let common = ["--images", "30", "--rows", "60", "--cancel", "none", "--strategies", "threads",
                              "--formats", "jpeg,webp,avif"]
                let viaNginx = root.appendingPathComponent("nginx"), embedded = root.appendingPathComponent("embedded")
                let a = try Fixtures.imgbench(["--source", "http://127.0.0.1:\(port)/img/{id}.{ext}", "--out", viaNginx.path] + common)
                #expect(a.status == 0, "\(a.output)")
                let b = try Fixtures.imgbench(["--network", "loopback", "--out", embedded.path] + common)
                #expect(b.status == 0, "\(b.output)")
                let (fromNginx, fromEmbedded) = (try Self.decoded(viaNginx), try Self.decoded(embedded))
                #expect(Set(fromNginx.keys) == ["jpeg", "webp", "avif"] && Set(fromEmbedded.keys) == ["jpeg", "webp", "avif"])
                for format in ["jpeg", "webp", "avif"] {
                    let mine = fromNginx[format] ?? [:], theirs = fromEmbedded[format] ?? [:]
                    let both = Set(mine.keys).intersection(theirs.keys)
                    #expect(both.count >= 5, "\(format): \(both.count) images in both")
                    for image in both {
                        #expect(mine[image] == theirs[image], "\(format) image \(image): nginx \(mine[image]!) vs embedded \(theirs[image]!)")
                        // The bytes are the file imgbench corpus wrote.
                        let ext = format == "jpeg" ? "jpg" : format
                        let file = try Data(contentsOf: corpus.appendingPathComponent("img/\(image).\(ext)"))
                        #expect(mine[image]![0] == file.count && ImageFormat(sniffing: [UInt8](file)).rawValue == format)
                    }
                }
                for directory in [viaNginx, embedded] {
                    let runs = try ResultsDirectory(path: directory.path).runs
                    #expect(runs.map { $0.text("format") ?? "" } == ["jpeg", "webp", "avif"])
                    #expect(runs.allSatisfy { $0.value("errors") == 0 && ($0.value("decode_ms_per_mp_p50") ?? 0) > 0 })
                }
                // A format the template cannot name is refused in one line, before anything runs.
                let mixed = try Fixtures.imgbench(["--source", "http://127.0.0.1:\(port)/img/{id}.{ext}", "--formats", "jpeg+png",
                                                   "--out", root.appendingPathComponent("x").path])
                #expect(mixed.status == 64 && mixed.output.contains("--formats naming single formats"), "\(mixed.output)")
            }
        }
    }
}
