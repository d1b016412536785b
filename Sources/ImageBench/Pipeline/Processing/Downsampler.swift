/// Scales a decoded image to the cell's pixel size the way a feed's image view shows it
/// (`scaleAspectFill` with clipping): fill the target, crop the overflow around the centre, and
/// never upscale. Each output pixel is the average of the source pixels it covers (a box filter),
/// so a 1200 px photo shrunk to a 240 px thumbnail does not alias.
public enum Downsampler {
    public static func aspectFill(_ image: DecodedImage, to target: PixelSize) -> DecodedImage {
        let source = image.size
        guard target.width > 0, target.height > 0 else { return image }
        // The scale that makes the image cover the target, capped at 1 (no upscaling).
        let scale = min(1, max(Double(target.width) / Double(source.width),
                               Double(target.height) / Double(source.height)))
        let outWidth = min(target.width, max(1, Int((Double(source.width) * scale).rounded())))
        let outHeight = min(target.height, max(1, Int((Double(source.height) * scale).rounded())))
        if outWidth == source.width && outHeight == source.height { return image }
        // The source rectangle that maps onto the output, centred.
        let cropWidth = min(source.width, Int((Double(outWidth) / scale).rounded()))
        let cropHeight = min(source.height, Int((Double(outHeight) / scale).rounded()))
        let cropX = (source.width - cropWidth) / 2
        let cropY = (source.height - cropHeight) / 2
        let xs = spans(count: outWidth, over: cropWidth, offset: cropX)
        let ys = spans(count: outHeight, over: cropHeight, offset: cropY)
        let largest = (xs.map { $0.1 - $0.0 }.max() ?? 1) * (ys.map { $0.1 - $0.0 }.max() ?? 1)
        // Division by a pixel count, as a multiply: (sum × ⌈2^40 / count⌉) >> 40 rounds as
        // (sum + count/2) / count does for sums up to 255 × 4096 pixels (checked by a test).
        let reciprocal = (0...largest).map { $0 == 0 ? UInt64(0) : ((UInt64(1) << 40) + UInt64($0) - 1) / UInt64($0) }

        var output = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        // Row by row: each output row sums its source rows in memory order into one line of
        // per-column sums, then divides once (the pixel-by-pixel loop jumped between rows).
        var sums = [UInt32](repeating: 0, count: outWidth * 4)
        image.pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                sums.withUnsafeMutableBufferPointer { line in
                    let stride = source.width * 4
                    for oy in 0..<outHeight {
                        let (y0, y1) = ys[oy]
                        for index in 0..<line.count { line[index] = 0 }
                        for y in y0..<y1 {
                            let row = y * stride
                            for ox in 0..<outWidth {
                                let (x0, x1) = xs[ox]
                                var offset = row + x0 * 4
                                var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0, a: UInt32 = 0
                                for _ in x0..<x1 {
                                    r &+= UInt32(src[offset]); g &+= UInt32(src[offset + 1])
                                    b &+= UInt32(src[offset + 2]); a &+= UInt32(src[offset + 3])
                                    offset &+= 4
                                }
                                let at = ox * 4
                                line[at] &+= r; line[at + 1] &+= g; line[at + 2] &+= b; line[at + 3] &+= a
                            }
                        }
                        let rows = y1 - y0
                        var out = oy * outWidth * 4
                        for ox in 0..<outWidth {
                            let count = (xs[ox].1 - xs[ox].0) * rows
                            let scale = reciprocal[count], half = UInt64(count / 2)
                            for channel in 0..<4 {
                                dst[out + channel] = UInt8(truncatingIfNeeded: ((UInt64(line[ox * 4 + channel]) + half) * scale) >> 40)
                            }
                            out &+= 4
                        }
                    }
                }
            }
        }
        return DecodedImage(size: PixelSize(width: outWidth, height: outHeight), pixels: output,
                            sourceSize: image.sourceSize)
    }

    /// For each of `count` output pixels, the half-open range of source pixels it averages.
    private static func spans(count: Int, over length: Int, offset: Int) -> [(Int, Int)] {
        (0..<count).map { index in
            let start = offset + index * length / count
            let end = max(start + 1, offset + (index + 1) * length / count)
            return (start, end)
        }
    }
}
