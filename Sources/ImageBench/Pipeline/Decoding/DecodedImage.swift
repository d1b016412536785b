/// A width × height size in pixels.
public struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixelCount: Int { width * height }
    public var description: String { "\(width)x\(height)" }
}

/// Decoded pixels: 8-bit RGBA, rows packed with no padding. What a UIImage backed by a decoded
/// bitmap holds, and what the memory cache charges for.
public struct DecodedImage: Sendable, Equatable {
    let size: PixelSize
    /// The image's size in its file, before decode-time scaling and downsampling: what decode cost
    /// is proportional to.
    let sourceSize: PixelSize
    public var pixels: [UInt8]
    /// What the memory cache charges for it: its pixel bytes, or for a `--no-decode` stand-in the
    /// bytes the real decoded image would take, so the cache evicts as a real client's does.
    var cost: Int { standInCost ?? pixels.count }
    var standInCost: Int?
    /// A virtual run's decode (`ModelledDecodes`): a stand-in's pixels, but an image decoded in
    /// the model, counted as one (images decoded, decode time per megapixel).
    var modelled = false
    /// Recoverable damage the decoder worked around (libjpeg's warnings: a truncated scan, bad
    /// Huffman data); the pixels are still shown, gray where data was missing.
    var warnings = 0
    /// Frames in the file (an animated GIF's or an AVIF sequence's total); the first is shown.
    var frames = 1

    init(size: PixelSize, pixels: [UInt8], sourceSize: PixelSize? = nil) {
        precondition(pixels.count == size.pixelCount * 4, "RGBA buffer does not match \(size)")
        self.size = size
        self.sourceSize = sourceSize ?? size
        self.pixels = pixels
    }

    var width: Int { size.width }
    var height: Int { size.height }


    /// The RGBA value at (x, y), for tests and spot checks.
    func pixel(x: Int, y: Int) -> [UInt8] {
        let offset = (y * width + x) * 4
        return Array(pixels[offset..<offset + 4])
    }
}
