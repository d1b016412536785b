import Foundation
import Testing
@testable import ImageBench

extension ChildProcessRuns {
    /// Broken images from a real third-party server: nginx serves a folder of hostile files, imgbench
    /// reads them through `--source` with a manifest, and every file meets its fate: displayed, or
    /// an error of the right class. The run itself must survive all of it.
    @Suite("Hostile files from nginx", .serialized)
    struct HostileSourceTests {
        static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
            return be(UInt32(data.count)) + body + be(Fixtures.crc32(body))
        }

        /// A PNG whose header says `width` × `height` (its data does not matter: it must be refused
        /// or fail before anything that size is allocated).
        static func pngClaiming(width: UInt32, height: UInt32) -> [UInt8] {
            func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
            return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(width) + be(height) + [8, 2, 0, 0, 0])
                + chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]) + chunk("IEND", [])
        }

        static func animatedGIF(_ rgb: [UInt8], size: PixelSize) throws -> [UInt8] {
            let quantized = try ImageEncoder.quantize(rgb, size: size)
            return try ImageEncoder.gif(frames: [quantized.indices, quantized.indices.reversed()], size: size, palette: quantized.palette)
        }

        /// The files and what each must become: nil is displayed, else the error class.
        static func hostileFolder(_ root: URL) throws -> [(name: String, expected: ErrorClass?)] {
            let size = PixelSize(width: 320, height: 240)
            let rgb = PhotoSynthesizer.rgb(size: size, seed: 9)
            let jpeg = try ImageEncoder.jpeg(rgb, size: size, channels: 3, quality: 85)
            let png = try ImageEncoder.png(rgb, size: size, layout: .rgb)
            var flipped = png
            let idat = try #require((0..<flipped.count - 4).first { flipped[$0..<$0 + 4] == ArraySlice("IDAT".utf8) })
            flipped[idat + 40] ^= 0x10  // inside the compressed data: its CRC no longer matches
            var twelveBit = jpeg
            let sof = try #require((0..<twelveBit.count - 1).first { twelveBit[$0] == 0xFF && twelveBit[$0 + 1] == 0xC0 })
            twelveBit[sof + 4] = 12  // the SOF0 precision byte: 8 → 12
            let files: [(String, [UInt8], ErrorClass?)] = [
                ("photo.jpg", jpeg, nil),
                ("avatar.png", png, nil),
                ("png-named.jpg", png, nil),                                     // the name lies; the bytes do not
                ("damaged.jpg", Array(jpeg.prefix(jpeg.count * 6 / 10)), nil),    // cut mid-scan: gray where data is missing
                ("truncated.jpg", Array(jpeg.prefix(120)), .decode),             // cut inside the headers
                ("bitflip.png", flipped, .decode),
                ("empty.jpg", [], .decode),
                ("error-page.jpg", Array("<html><body><h1>502 Bad Gateway</h1></body></html>\n".utf8), .decode),
                ("huge.png", pngClaiming(width: 100_000, height: 100_000), .tooLarge),
                ("zero.png", pngClaiming(width: 0, height: 0), .decode),
                ("twelve-bit.jpg", twelveBit, .unsupported),
                ("frameless.gif", Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255, 0x3B], .decode),
                ("image.webp", Array("RIFF".utf8) + [26, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 18), .decode),
                // A VP8X header announcing an animation: animated WebP is not decoded.
                ("animated.webp", Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0x02, 0, 0, 0, 9, 0, 0, 9, 0, 0],
                 .unsupported),
                ("photo.webp", try ImageEncoder.webp(rgb, size: size, channels: 3, quality: 80), nil),
                ("photo.avif", try ImageEncoder.avif(rgb, size: size, channels: 3, quantizer: 30), nil),
                ("anim.gif", try Self.animatedGIF(rgb, size: size), nil),
            ]
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for (name, bytes, _) in files {
                try Data(bytes).write(to: root.appendingPathComponent(name))
            }
            return files.map { ($0.0, $0.2) } + [("missing.jpg", .httpStatus)]
        }

        @Test("nginx serves a folder of hostile files: the run exits 0, valid images display, each hostile one is an error of its class")
        func hostileFiles() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("hostile")
                defer { try? FileManager.default.removeItem(at: root) }
                let files = try Self.hostileFolder(root.appendingPathComponent("www"))
                let nginx = try Nginx(root: root.appendingPathComponent("www"))
                defer { nginx.stop() }
                let manifest = root.appendingPathComponent("manifest.json")
                let urls = files.map { "\(nginx.baseURL)/\($0.name)" }
                try JSONSerialization.data(withJSONObject: urls, options: .prettyPrinted).write(to: manifest)

                let out = root.appendingPathComponent("results")
                let run = try Fixtures.imgbench(["--source", manifest.path, "--rows", "300", "--strategies", "threads",
                                                     "--cancel", "none", "--out", out.path])
                #expect(run.status == 0, "\(run.output)")
                let text = try String(contentsOf: out.appendingPathComponent("requests.csv"), encoding: .utf8)
                let rows = CSVTable.parse(text)
                let header = try #require(rows.first)
                let requests = rows.dropFirst().filter { $0.count == header.count }.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
                for (file, url) in zip(files, urls) {
                    let mine = requests.filter { $0["url"] == url }
                    try #require(!mine.isEmpty, "the feed never showed \(file.name)")
                    if let expected = file.expected {
                        #expect(mine.allSatisfy { $0["outcome"] != "displayed" }, "\(file.name) was displayed")
                        let classes = Set(mine.compactMap { $0["error_class"] }.filter { !$0.isEmpty })
                        #expect(classes == [expected.rawValue], "\(file.name): \(classes) \(mine.compactMap { $0["error"] }.filter { !$0.isEmpty }.first ?? "")")
                    } else {
                        #expect(mine.contains { $0["outcome"] == "displayed" }, "\(file.name) never displayed: \(mine.compactMap { $0["error"] }.first ?? "")")
                    }
                }
                let damaged = requests.filter { $0["url"] == urls[files.firstIndex { $0.name == "damaged.jpg" }!] }
                #expect(damaged.contains { Int($0["decode_warnings"] ?? "") ?? 0 > 0 }, "a damaged JPEG displays with its warnings counted")
                let summary = try ResultsDirectory(path: out.path).runs[0]
                #expect(summary.value("peak_rss_mb") ?? 1e9 < 500)
                #expect(summary.value("errors_unsupported") ?? 0 >= 1 && summary.value("errors_too_large") ?? 0 >= 1)
            }
        }
    }
}
