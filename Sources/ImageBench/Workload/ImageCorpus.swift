import Dispatch
import Synchronization

/// One generated image: its bytes exactly as the server sends them.
public struct CorpusImage: Sendable, Identifiable {
    public let id: Int
    let format: ImageFormat
    public let size: PixelSize
    public let bytes: [UInt8]

    /// The path the embedded server serves it at, e.g. `img/42.jpg`.
    var path: String { "img/\(id).\(format.fileExtension)" }
}

/// A deterministic set of encoded images: the same seed and count give the same bytes on every
/// run, so every strategy downloads and decodes exactly the same work.
///
/// The mix mirrors a feed: avatars (96–160 px, half of them PNG), thumbnails (240–480 px JPEG) and
/// feed photos (640–1200 px JPEG, a third progressive). Another `CorpusFormat` encodes the same
/// pictures in one format.
public struct ImageCorpus: Sendable {
    let seed: UInt64
    public let images: [CorpusImage]
    /// How many came from the corpus cache, and how many cached files were damaged (and made again).
    private(set) var fromCache = 0
    private(set) var damagedInCache = 0

    public var totalBytes: Int { images.reduce(0) { $0 + $1.bytes.count } }

    subscript(id: Int) -> CorpusImage { images[id] }

    /// Generates `count` images on all cores, or loads them from `cache` where it holds them
    /// whole (and stores the ones it had to make). `progress` is called with the number done so
    /// far. `shouldStop` ends generation early (Ctrl-C); the corpus then lacks the images not made.
    /// `format` `.only(.jpeg)` encodes the avatars that would be PNG as JPEG too (for `{id}.jpg`
    /// URL templates).
    public static func generate(count: Int, seed: UInt64, format: CorpusFormat = .mixed, cache: CorpusCache? = nil,
                                progress: (@Sendable (Int) -> Void)? = nil, shouldStop: (@Sendable () -> Bool)? = nil) -> ImageCorpus {
        let results = Locked<[CorpusImage?]>(Array(repeating: nil, count: count))
        let done = Atomic<Int>(0), loaded = Atomic<Int>(0), damaged = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: count) { id in
            if shouldStop?() == true { return }
            var broken = false
            let image: CorpusImage
            if let cached = cache?.load(id: id, seed: seed, format: format, damaged: &broken) {
                image = cached
                loaded.add(1, ordering: .relaxed)
            } else {
                image = makeImage(id: id, seed: seed, format: format)
                cache?.store(image, seed: seed, format: format)
                if broken { damaged.add(1, ordering: .relaxed) }
            }
            results.withLockedValue { $0[id] = image }
            let finished = done.add(1, ordering: .relaxed).newValue
            if finished % 50 == 0 || finished == count { progress?(finished) }
        }
        var corpus = ImageCorpus(seed: seed, images: results.withLockedValue { $0.compactMap { $0 } })
        corpus.fromCache = loaded.load(ordering: .relaxed)
        corpus.damagedInCache = damaged.load(ordering: .relaxed)
        return corpus
    }

    /// One image of the corpus, made on the calling thread (what `generate` runs on every core).
    public static func makeImage(id: Int, seed: UInt64, format: CorpusFormat = .mixed) -> CorpusImage {
        var random = SeededRandom(seed: seed ^ SeededRandom.mix(UInt64(id) &+ 0xC0FFEE))
        let kind = random.unit()
        let pixelSeed = random.next()
        if kind < 0.35 {
            // Avatar: square; in the mix half are PNG, some of those with an alpha channel (a round
            // mask). (The alpha draw is the picture's last, so drawing it for every format changes
            // no other choice.)
            let side = 96 + Int(random.unit() * 65)
            let size = PixelSize(width: side, height: side)
            let rgb = PhotoSynthesizer.rgb(size: size, seed: pixelSeed)
            let mixedIsPNG = random.unit() < 0.5
            let withAlpha = mixedIsPNG && random.unit() < 0.5
            let fileFormat = format.fileFormat(mixedChoice: mixedIsPNG ? .png : .jpeg)
            let alpha = withAlpha && fileFormat != .jpeg ? roundAlpha(side: side) : nil
            let bytes = try! CorpusEncoding.encode(fileFormat, rgb: rgb, alpha: alpha, size: size, jpegQuality: 85, progressive: false)
            return CorpusImage(id: id, format: fileFormat, size: size, bytes: bytes)
        }
        let isPhoto = kind >= 0.75
        let longSide = isPhoto ? 640 + Int(random.unit() * 561) : 240 + Int(random.unit() * 241)
        let aspects: [(Int, Int)] = [(4, 3), (3, 2), (1, 1), (3, 4), (16, 9)]
        let (a, b) = aspects[Int(random.unit() * Double(aspects.count))]
        let size = a >= b ? PixelSize(width: longSide, height: longSide * b / a)
                          : PixelSize(width: longSide * a / b, height: longSide)
        let rgb = PhotoSynthesizer.rgb(size: size, seed: pixelSeed)
        let progressive = isPhoto && random.unit() < 1.0 / 3.0
        let fileFormat = format.fileFormat(mixedChoice: .jpeg)
        let bytes = try! CorpusEncoding.encode(fileFormat, rgb: rgb, alpha: nil, size: size, jpegQuality: isPhoto ? 80 : 85,
                                               progressive: progressive)
        return CorpusImage(id: id, format: fileFormat, size: size, bytes: bytes)
    }

    /// Everything outside the inscribed circle transparent, as avatars are cut.
    private static func roundAlpha(side: Int) -> [UInt8] {
        var alpha = [UInt8](repeating: 0, count: side * side)
        let centre = Double(side - 1) / 2, radius2 = Double(side * side) / 4
        for y in 0..<side {
            for x in 0..<side {
                let dx = Double(x) - centre, dy = Double(y) - centre
                alpha[y * side + x] = dx * dx + dy * dy <= radius2 ? 255 : 0
            }
        }
        return alpha
    }
}
