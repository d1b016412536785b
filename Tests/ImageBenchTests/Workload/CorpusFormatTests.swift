import Testing
@testable import ImageBench

/// `--formats`: the same pictures in every format, at a quality matched by SSIM.
@Suite("The corpus in several formats")
struct CorpusFormatTests {
    static let count = 16

    @Test("every format encodes the same pictures: the same ids, sizes and decoded sizes; only the mix has two formats")
    func samePictures() throws {
        let mixed = ImageCorpus.generate(count: Self.count, seed: 1)
        #expect(Set(mixed.images.map(\.format)) == [.jpeg, .png])
        for format in ImageFormat.decodable {
            let corpus = ImageCorpus.generate(count: Self.count, seed: 1, format: .only(format))
            #expect(corpus.images.map(\.size) == mixed.images.map(\.size), "\(format)")
            for image in corpus.images {
                #expect(image.format == format && ImageFormat(sniffing: image.bytes) == format && image.path.hasSuffix(".\(format.fileExtension)"))
                let decoded = try ImageDecoder().decode(image.bytes, targetSize: nil, limits: DecodeLimits())
                #expect(decoded.size == image.size, "\(format) \(image.id)")
            }
        }
        // The mix's JPEG images are byte for byte the JPEG corpus's, and its PNGs the PNG corpus's.
        let jpeg = ImageCorpus.generate(count: Self.count, seed: 1, format: .only(.jpeg))
        let png = ImageCorpus.generate(count: Self.count, seed: 1, format: .only(.png))
        for image in mixed.images {
            #expect(image.bytes == (image.format == .jpeg ? jpeg : png)[image.id].bytes, "image \(image.id)")
        }
    }

    @Test("avatars with an alpha mask keep it in every format that has alpha")
    func alphaKept() throws {
        let mixed = ImageCorpus.generate(count: 40, seed: 1)
        let masked = try #require(mixed.images.first { image in
            image.format == .png && (try? ImageDecoder().decode(image.bytes, targetSize: nil, limits: DecodeLimits()))?.pixel(x: 0, y: 0)[3] == 0
        })
        for format in [ImageFormat.webp, .avif, .gif, .png] {
            let image = ImageCorpus.makeImage(id: masked.id, seed: 1, format: .only(format))
            let decoded = try ImageDecoder().decode(image.bytes, targetSize: nil, limits: DecodeLimits())
            #expect(decoded.pixel(x: 0, y: 0)[3] == 0 && decoded.pixel(x: image.size.width / 2, y: image.size.height / 2)[3] == 255, "\(format)")
        }
        let jpeg = ImageCorpus.makeImage(id: masked.id, seed: 1, format: .only(.jpeg))
        #expect(try ImageDecoder().decode(jpeg.bytes, targetSize: nil, limits: DecodeLimits()).pixel(x: 0, y: 0)[3] == 255)
    }

    @Test("WebP and AVIF are within 0.01 SSIM of JPEG on the same pictures; smaller than JPEG")
    func qualityMatched() throws {
        // The PNG corpus is the pictures' exact pixels: the reference each format is measured against.
        let reference = ImageCorpus.generate(count: Self.count, seed: 1, format: .only(.png))
        var ssim: [ImageFormat: Double] = [:], bytes: [ImageFormat: Int] = [:]
        for format in [ImageFormat.jpeg, .webp, .avif] {
            let corpus = ImageCorpus.generate(count: Self.count, seed: 1, format: .only(format))
            var total = 0.0, measured = 0
            for (image, original) in zip(corpus.images, reference.images) {
                let exact = try ImageDecoder().decode(original.bytes, targetSize: nil, limits: DecodeLimits())
                // Masked avatars: what lies under a clear pixel is not shown, and encoders drop it.
                guard stride(from: 3, to: exact.pixels.count, by: 4).allSatisfy({ exact.pixels[$0] == 255 }) else { continue }
                let decoded = try ImageDecoder().decode(image.bytes, targetSize: nil, limits: DecodeLimits())
                total += SSIM.mean(exact.pixels, channelsA: 4, decoded.pixels, channelsB: 4, size: image.size)
                measured += 1
                bytes[format, default: 0] += image.bytes.count
            }
            ssim[format] = total / Double(measured)
        }
        let jpeg = try #require(ssim[.jpeg])
        #expect(jpeg > 0.8 && jpeg < 0.95, "JPEG's SSIM \(jpeg)")
        for format in [ImageFormat.webp, .avif] {
            #expect(abs(ssim[format]! - jpeg) <= 0.01, "\(format) SSIM \(ssim[format]!) vs JPEG \(jpeg)")
            #expect(bytes[format]! < bytes[.jpeg]!, "\(format) \(bytes[format]!) B vs JPEG \(bytes[.jpeg]!) B")
        }
    }

    @Test("SSIM is 1 for identical images and falls with noise")
    func ssimBehaves() {
        let size = PixelSize(width: 40, height: 30)
        let rgb = PhotoSynthesizer.rgb(size: size, seed: 2)
        #expect(SSIM.mean(rgb, channelsA: 3, rgb, channelsB: 3, size: size) == 1)
        var noisy = rgb
        for i in stride(from: 0, to: noisy.count, by: 7) { noisy[i] = noisy[i] &+ 40 }
        let value = SSIM.mean(rgb, channelsA: 3, noisy, channelsB: 3, size: size)
        #expect(value < 0.95 && value > 0)
    }

    @Test("--formats names parse; an unknown one is a one-line error naming the choices")
    func parsing() throws {
        #expect(try CorpusFormat(parsing: "jpeg+png") == .mixed)
        #expect(try CorpusFormat(parsing: " JPG ") == .only(.jpeg))
        #expect(try CorpusFormat(parsing: "avif") == .only(.avif))
        #expect(throws: PlanError("--formats: unknown format 'heic' (use jpeg+png, jpeg, png, webp, avif, gif)")) {
            try CorpusFormat(parsing: "heic")
        }
    }
}
