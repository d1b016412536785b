import CShims

/// `imgbench decoders`: each decoder's speed on this machine, at full size and at each reduced
/// scale, on the same picture encoded in each format at the corpus's settings. A reduced scale is
/// what the pipeline does for a smaller cell: the decoder's own scaled decode where it has one
/// (JPEG's DCT scaling, WebP's scaled decode), else a full decode and the box filter, whose time is
/// counted too. Where a scale costs as much as full size, a smaller decode does not pay.
public enum DecoderCost {
    public struct Row: Sendable {
        public let format: ImageFormat
        let library: String
        /// 1, 2, 4 or 8: the output is 1/scale of the picture on each side.
        public let scale: Int
        let output: PixelSize
        let fileBytes: Int
        /// Medians over the timed decodes, and how many there were.
        public let milliseconds: Double
        let decodes: Int
        /// Megapixels of the file decoded per second (the picture's, whatever the output).
        let megapixelsPerSecond: Double
        /// This scale's time over full size's.
        let relativeToFull: Double
    }

    static let scales = [1, 2, 4, 8]

    /// Times every format at every scale for about `seconds` each (at least 3 decodes), one
    /// decode at a time on the calling thread. `progress` hears each row as it is done.
    public static func measure(size: PixelSize, seconds: Double, formats: [ImageFormat] = ImageFormat.decodable,
                               progress: (Row) -> Void = { _ in }) throws -> [Row] {
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 1)
        var rows: [Row] = []
        // Our own images at the size asked for: neither limit should refuse them (a full-size
        // decode holds at most 16 bytes a pixel: lossless WebP's ARGB and the output).
        let limits = DecodeLimits(maxPixels: max(DecodeLimits().maxPixels, size.pixelCount),
                                  maxDecodeMegabytes: max(DecodeLimits.defaultMaxDecodeMegabytes, size.pixelCount * 16 / 1_000_000 + 1))
        for format in formats {
            // A photo at the corpus's photo settings (JPEG quality 80 and its SSIM-matched peers).
            let bytes = try CorpusEncoding.encode(format, rgb: rgb, alpha: nil, size: size, jpegQuality: 80, progressive: false)
            var full = 0.0
            for scale in scales {
                let target = scale == 1 ? nil : PixelSize(width: max(1, size.width / scale), height: max(1, size.height / scale))
                var times: [UInt64] = []
                var output = size
                let deadline = MonotonicClock().now() + UInt64(seconds * 1e9)
                while times.count < 3 || MonotonicClock().now() < deadline {
                    let start = MonotonicClock().now()
                    var image = try ImageDecoder().decode(bytes, targetSize: target, limits: limits)
                    if let target { image = Downsampler.aspectFill(image, to: target) }
                    times.append(MonotonicClock().now() - start)
                    output = image.size
                }
                let median = Double(times.sorted()[times.count / 2]) / 1e6
                if scale == 1 { full = median }
                let row = Row(format: format, library: format.decoderLibrary, scale: scale, output: output, fileBytes: bytes.count,
                              milliseconds: median, decodes: times.count,
                              megapixelsPerSecond: Double(size.pixelCount) / 1e6 / (median / 1e3), relativeToFull: median / full)
                rows.append(row)
                progress(row)
            }
        }
        return rows
    }

    /// The table as text: one line per format and scale.
    public static func table(_ rows: [Row], size: PixelSize) -> String {
        let header = ["format", "scale", "output", "file kB", "ms (median)", "MP/s", "vs full", "decodes", "library"]
        let lines = rows.map { row in
            [row.format.rawValue, row.scale == 1 ? "1" : "1/\(row.scale)", row.output.description,
             String(format: "%.1f", Double(row.fileBytes) / 1e3), String(format: "%.2f", row.milliseconds),
             String(format: "%.0f", row.megapixelsPerSecond), String(format: "%.2f", row.relativeToFull), String(row.decodes),
             row.scale == 1 ? row.library : ""]
        }
        let widths = header.indices.map { column in lines.reduce(header[column].count) { max($0, $1[column].count) } }
        func line(_ fields: [String]) -> String {
            fields.enumerated().map { column, field in
                column == 0 || column == header.count - 1 ? field.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - field.count) + field
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return "Decoding a \(size) photo, one decode at a time (MP/s: megapixels of the file per second; "
            + "a reduced scale includes the box filter where the decoder has no scaled decode)\n"
            + ([line(header)] + lines.map(line)).joined(separator: "\n") + "\n"
    }

    /// The table as CSV, for tools.
    public static func csv(_ rows: [Row]) -> String {
        var table = CSVTable(header: ["format", "scale", "output_width", "output_height", "file_bytes", "ms_median", "megapixels_per_s",
                                      "relative_to_full", "decodes", "library"])
        for row in rows {
            table.append([row.format.rawValue, String(row.scale), String(row.output.width), String(row.output.height),
                          String(row.fileBytes), String(format: "%.4f", row.milliseconds), String(format: "%.2f", row.megapixelsPerSecond),
                          String(format: "%.4f", row.relativeToFull), String(row.decodes), row.library])
        }
        return table.rendered
    }
}
