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

        var output = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        image.pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                let stride = source.width * 4
                for oy in 0..<outHeight {
                    let (y0, y1) = ys[oy]
                    for ox in 0..<outWidth {
                        let (x0, x1) = xs[ox]
                        var r = 0, g = 0, b = 0, a = 0
                        for y in y0..<y1 {
                            var offset = y * stride + x0 * 4
                            for _ in x0..<x1 {
                                r &+= Int(src[offset]); g &+= Int(src[offset + 1])
                                b &+= Int(src[offset + 2]); a &+= Int(src[offset + 3])
                                offset &+= 4
                            }
                        }
                        let count = (y1 - y0) * (x1 - x0)
                        let half = count / 2
                        let out = (oy * outWidth + ox) * 4
                        dst[out] = UInt8((r + half) / count)
                        dst[out + 1] = UInt8((g + half) / count)
                        dst[out + 2] = UInt8((b + half) / count)
                        dst[out + 3] = UInt8((a + half) / count)
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
