/// The "beautify" step the classic tutorials run after decoding. Each works in place on RGBA and
/// leaves alpha alone.
public enum ImageFilter: String, Sendable, Codable, CaseIterable, ImageProcessing {
    case none
    /// The classic sepia tone matrix (Microsoft's coefficients, as Core Image's CISepiaTone at 1.0).
    case sepia
    /// Rec. 601 luma.
    case grayscale
    /// A 5×5 box blur (two separable passes), the heaviest of the set.
    case blur

    public func apply(to image: inout DecodedImage) {
        switch self {
        case .none: return
        case .sepia: Self.sepia(&image.pixels)
        case .grayscale: Self.grayscale(&image.pixels)
        case .blur: Self.boxBlur(&image.pixels, width: image.width, height: image.height, radius: 2)
        }
    }

    func applied(to image: DecodedImage) -> DecodedImage {
        var copy = image
        apply(to: &copy)
        return copy
    }

    // Coefficients scaled by 1024 so the inner loop is integer arithmetic.
    private static func sepia(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let r = Int(p[i]), g = Int(p[i + 1]), b = Int(p[i + 2])
                let red: Int = 402 * r + 787 * g + 194 * b
                let green: Int = 357 * r + 702 * g + 172 * b
                let blue: Int = 279 * r + 547 * g + 134 * b
                p[i] = UInt8(min(255, red >> 10))
                p[i + 1] = UInt8(min(255, green >> 10))
                p[i + 2] = UInt8(min(255, blue >> 10))
                i += 4
            }
        }
    }

    private static func grayscale(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let weighted: Int = 306 * Int(p[i]) + 601 * Int(p[i + 1]) + 117 * Int(p[i + 2])
                let luma = UInt8((weighted + 512) >> 10)
                p[i] = luma; p[i + 1] = luma; p[i + 2] = luma
                i += 4
            }
        }
    }

    private static func boxBlur(_ pixels: inout [UInt8], width: Int, height: Int, radius: Int) {
        var scratch = pixels
        // Horizontal pass into scratch, vertical pass back into pixels; edges clamp.
        pass(from: pixels, into: &scratch, count: width, lines: height, step: 4, lineStride: width * 4, radius: radius)
        pass(from: scratch, into: &pixels, count: height, lines: width, step: width * 4, lineStride: 4, radius: radius)
    }

    private static func pass(from source: [UInt8], into target: inout [UInt8], count: Int, lines: Int,
                             step: Int, lineStride: Int, radius: Int) {
        let window = 2 * radius + 1
        source.withUnsafeBufferPointer { src in
            target.withUnsafeMutableBufferPointer { dst in
                for line in 0..<lines {
                    let base = line * lineStride
                    for channel in 0..<3 {
                        var sum = 0
                        for k in -radius...radius {
                            sum += Int(src[base + min(max(k, 0), count - 1) * step + channel])
                        }
                        for i in 0..<count {
                            dst[base + i * step + channel] = UInt8(sum / window)
                            let leaving = min(max(i - radius, 0), count - 1)
                            let entering = min(i + radius + 1, count - 1)
                            sum += Int(src[base + entering * step + channel]) - Int(src[base + leaving * step + channel])
                        }
                    }
                }
            }
        }
    }
}
