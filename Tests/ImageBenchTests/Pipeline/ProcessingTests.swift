import Testing
@testable import ImageBench

@Suite("Downsampling and filters")
struct ProcessingTests {
    @Test("aspect fill crops the overflow around the centre and averages pixels")
    func aspectFill() {
        // 4×2 image: left half black, right half white; filling 1×1 averages the centre square.
        let pixels: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255,
                               0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255]
        let image = DecodedImage(size: PixelSize(width: 4, height: 2), pixels: pixels)
        let out = Downsampler.aspectFill(image, to: PixelSize(width: 1, height: 1))
        #expect(out.size == PixelSize(width: 1, height: 1))
        #expect(out.pixels == [128, 128, 128, 255])
        #expect(out.sourceSize == PixelSize(width: 4, height: 2))
        // Filling 2×1 keeps the aspect: no crop, each output pixel averages its half.
        #expect(Downsampler.aspectFill(image, to: PixelSize(width: 2, height: 1)).pixels == [0, 0, 0, 255, 255, 255, 255, 255])
    }

    @Test("never upscales")
    func noUpscale() {
        let image = DecodedImage(size: PixelSize(width: 2, height: 2), pixels: [UInt8](repeating: 9, count: 16))
        #expect(Downsampler.aspectFill(image, to: PixelSize(width: 240, height: 240)) == image)
    }

    @Test("a landscape photo fills a square cell exactly")
    func landscape() {
        let image = DecodedImage(size: PixelSize(width: 1200, height: 800), pixels: [UInt8](repeating: 50, count: 1200 * 800 * 4))
        #expect(Downsampler.aspectFill(image, to: PixelSize(width: 240, height: 240)).size == PixelSize(width: 240, height: 240))
    }

    @Test("sepia, grayscale and blur give known values")
    func filters() {
        var image = DecodedImage(size: PixelSize(width: 1, height: 1), pixels: [100, 150, 200, 77])
        ImageFilter.sepia.apply(to: &image)
        // 0.393·100 + 0.769·150 + 0.189·200 = 192.3; 0.349·100 + 0.686·150 + 0.168·200 = 171.4; 0.272·100 + 0.534·150 + 0.131·200 = 133.5
        #expect(close(image.pixels, [192, 171, 133, 77], tolerance: 1))
        let gray = ImageFilter.grayscale.applied(to: DecodedImage(size: PixelSize(width: 1, height: 1), pixels: [100, 150, 200, 9]))
        #expect(gray.pixels == [141, 141, 141, 9])
        let flat = DecodedImage(size: PixelSize(width: 8, height: 8), pixels: [UInt8](repeating: 60, count: 256))
        #expect(ImageFilter.blur.applied(to: flat).pixels == flat.pixels)
        var spike = [UInt8](repeating: 0, count: 9 * 9 * 4)
        spike[(4 * 9 + 4) * 4] = 250
        let blurred = ImageFilter.blur.applied(to: DecodedImage(size: PixelSize(width: 9, height: 9), pixels: spike))
        #expect(blurred.pixel(x: 4, y: 4)[0] == 10)  // 250 spread over 5×5
        #expect(blurred.pixel(x: 0, y: 0)[0] == 0)
    }

    @Test("--inject wraps the decoder and the filter: same pixels, same errors, the stage slowed by its amount")
    func injectedSlowdown() throws {
        #expect(FaultInjection.none.slowing(decoder: ImageDecoder()) is ImageDecoder)
        #expect(FaultInjection.none.slowing(processor: ImageFilter.sepia) as? ImageFilter == .sepia)
        let injection = try FaultInjection(parsing: "decode=+30ms,filter=+20ms")
        let decoder = injection.slowing(decoder: ImageDecoder())
        let processor = injection.slowing(processor: ImageFilter.grayscale)
        let size = PixelSize(width: 8, height: 8)
        let bytes = try ImageEncoder.png(Fixtures.quadrants(size: size), size: size, layout: .rgb)

        var started = MonotonicClock().now()
        let image = try decoder.decode(bytes, targetSize: nil, limits: DecodeLimits())
        #expect(MonotonicClock().now() - started >= 30_000_000)
        #expect(image == (try ImageDecoder().decode(bytes, targetSize: nil, limits: DecodeLimits())))
        #expect(throws: DecodeError.empty) { try decoder.decode([], targetSize: nil, limits: DecodeLimits()) }

        var filtered = image
        started = MonotonicClock().now()
        processor.apply(to: &filtered)
        #expect(MonotonicClock().now() - started >= 20_000_000)
        #expect(filtered == ImageFilter.grayscale.applied(to: image))
    }

    @Test("the reciprocal in the box filter rounds as division does at every quotient's edge, both sides of 2^16 pixels")
    func reciprocalEdges() {
        // An n×n image filled to 1×1 averages n² pixels; each channel's sum is put one below and
        // at a rounding boundary (sum + n²/2 = q·n² − 1 and q·n²).
        for n in [2, 3, 15, 16, 17, 100, 255, 256, 257] {
            let count = n * n
            for q in [1, 128, 255] {
                let sums = [q * count - 1 - count / 2, q * count - count / 2, q * count - 1 - count / 2, q * count - count / 2]
                var pixels = [UInt8](repeating: 0, count: count * 4)
                for channel in 0..<4 {
                    var left = sums[channel]
                    for pixel in 0..<count where left > 0 {
                        let value = min(255, left)
                        pixels[pixel * 4 + channel] = UInt8(value)
                        left -= value
                    }
                }
                let image = DecodedImage(size: PixelSize(width: n, height: n), pixels: pixels)
                let out = Downsampler.aspectFill(image, to: PixelSize(width: 1, height: 1))
                let expected = sums.map { UInt8(($0 + count / 2) / count) }
                #expect(out.pixels == expected, "n \(n), q \(q)")
                #expect(expected == [UInt8(q - 1), UInt8(q), UInt8(q - 1), UInt8(q)])
            }
        }
    }

    /// The box filter written plainly: each output pixel averages its source rectangle, with
    /// integer division. The optimised filter must give the same bytes.
    static func referenceBox(_ image: DecodedImage, to out: PixelSize, crop: (x: Int, y: Int, width: Int, height: Int)) -> [UInt8] {
        func spans(_ count: Int, _ length: Int, _ offset: Int) -> [(Int, Int)] {
            (0..<count).map { (offset + $0 * length / count, max(offset + $0 * length / count + 1, offset + ($0 + 1) * length / count)) }
        }
        let xs = spans(out.width, crop.width, crop.x), ys = spans(out.height, crop.height, crop.y)
        var output = [UInt8](repeating: 0, count: out.pixelCount * 4)
        for oy in 0..<out.height {
            for ox in 0..<out.width {
                var sums = [0, 0, 0, 0]
                for y in ys[oy].0..<ys[oy].1 {
                    for x in xs[ox].0..<xs[ox].1 {
                        for c in 0..<4 { sums[c] += Int(image.pixels[(y * image.size.width + x) * 4 + c]) }
                    }
                }
                let count = (ys[oy].1 - ys[oy].0) * (xs[ox].1 - xs[ox].0)
                for c in 0..<4 { output[(oy * out.width + ox) * 4 + c] = UInt8((sums[c] + count / 2) / count) }
            }
        }
        return output
    }

    @Test("the box filter gives the bytes of a plain per-pixel average, on real photos at several ratios")
    func sameBytesAsReference() throws {
        // Ratios of 2.5, 1.25, about 1.4 and just over 1 to a 60 px cell (small images: the
        // reference is slow, and other suites run beside this one).
        for (width, height, seed) in [(150, 113, 1), (100, 75, 2), (83, 129, 3), (61, 60, 4)] {
            let size = PixelSize(width: width, height: height)
            let rgb = PhotoSynthesizer.rgb(size: size, seed: UInt64(seed))
            var rgba = [UInt8](repeating: 255, count: size.pixelCount * 4)
            for pixel in 0..<size.pixelCount { for c in 0..<3 { rgba[pixel * 4 + c] = rgb[pixel * 3 + c] } }
            let image = DecodedImage(size: size, pixels: rgba)
            let target = PixelSize(width: 60, height: 60)
            let result = Downsampler.aspectFill(image, to: target)
            let scale = min(1, max(60 / Double(width), 60 / Double(height)))
            let crop = (width: min(width, Int((Double(result.size.width) / scale).rounded())),
                        height: min(height, Int((Double(result.size.height) / scale).rounded())))
            let reference = Self.referenceBox(image, to: result.size,
                                              crop: ((width - crop.width) / 2, (height - crop.height) / 2, crop.width, crop.height))
            #expect(result.pixels == reference, "\(width)×\(height)")
        }
    }
}
