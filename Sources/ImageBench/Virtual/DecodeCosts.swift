import Foundation

/// What each image of the embedded corpus costs this machine to decode to the cell and to filter,
/// one core's time, for a virtual run's modelled decodes (`ModelledCPU`). `imgbench calibrate`
/// measures it beside the host delay: each image decoded to the cell (the decoder's own scaling,
/// then the box filter to fill the cell, as the pipeline's decode stage does) three times on one
/// thread, the median kept; each filter on a sample of the decoded cells. An image is the same
/// picture for the same seed, id and format whatever the corpus's size, so a calibration of N
/// images serves every run whose feed uses at most N.
public struct DecodeCosts: Sendable, Codable, Equatable {
    /// The corpus measured: its seed and format (`--seed`, `--formats`), and the cell.
    public let seed: UInt64
    public let format: String
    public let cellWidth: Int
    public let cellHeight: Int
    /// Per image id: the decode in microseconds, the picture's pixels, and the bytes of the cell
    /// it decodes to (what the memory cache holds: a picture smaller than the cell is not
    /// enlarged, so an avatar holds a fraction of a photo's).
    public let decodeUs: [Int]
    public let sourcePixels: [Int]
    public let cellBytes: [Int]
    /// Per filter (`--filter`'s names): its time on one cell, in microseconds.
    public let filterUs: [String: Int]

    /// Decodes of each image timed; the median is kept.
    static let repeats = 3
    /// Cells each filter is timed on.
    static let filterSample = 24

    /// Measures images 0..<count of the corpus `seed` and `format` makes. `progress` hears the
    /// images done so far; `shouldStop` ends it early (nil then).
    static func measure(count: Int, seed: UInt64, format: CorpusFormat, cell: PixelSize = ImagePipeline.defaultTargetSize,
                        progress: ((Int) -> Void)? = nil, shouldStop: (@Sendable () -> Bool)? = nil) throws(DecodeError) -> DecodeCosts? {
        let clock = MonotonicClock(), decoder = ImageDecoder()
        var decodeUs: [Int] = [], pixels: [Int] = [], cellBytes: [Int] = [], cells: [DecodedImage] = []
        // Made (or loaded) on every core as a run makes its corpus; only the timing is on one thread.
        let corpus = ImageCorpus.generate(count: count, seed: seed, format: format, cache: CorpusCache.standard(), shouldStop: shouldStop)
        guard corpus.images.count == count else { return nil }
        for image in corpus.images {
            if shouldStop?() == true { return nil }
            let id = image.id
            var times: [UInt64] = []
            for _ in 0..<repeats {
                let started = clock.now()
                let decoded = Downsampler.aspectFill(try decoder.decode(image.bytes, targetSize: cell, limits: DecodeLimits()), to: cell)
                times.append(clock.now() - started)
                if times.count == 1 {
                    cellBytes.append(decoded.cost)
                    if cells.count < filterSample { cells.append(decoded) }
                }
            }
            decodeUs.append(Int(times.sorted()[repeats / 2] / 1_000))
            pixels.append(image.size.pixelCount)
            if (id + 1) % 50 == 0 || id + 1 == count { progress?(id + 1) }
        }
        var filterUs: [String: Int] = [:]
        for filter in ImageFilter.allCases {
            let times = cells.map { cell -> UInt64 in
                var image = cell
                let started = clock.now()
                filter.apply(to: &image)
                return clock.now() - started
            }.sorted()
            filterUs[filter.rawValue] = times.isEmpty ? 0 : Int(times[times.count / 2] / 1_000)
        }
        return DecodeCosts(seed: seed, format: format.description, cellWidth: cell.width, cellHeight: cell.height,
                           decodeUs: decodeUs, sourcePixels: pixels, cellBytes: cellBytes, filterUs: filterUs)
    }

    /// Why these costs do not serve `settings`' corpus, cell and filter, each difference named;
    /// nil when they do.
    func mismatch(with settings: RunSettings, format: CorpusFormat, cell: PixelSize = ImagePipeline.defaultTargetSize) -> String? {
        var differences: [String] = []
        if seed != settings.seed { differences.append("seed \(seed) there, \(settings.seed) here") }
        if self.format != format.description { differences.append("format \(UntrustedText.line(self.format, limit: 40)) there, \(format) here") }
        if (cellWidth, cellHeight) != (cell.width, cell.height) {
            differences.append("cell \(cellWidth)×\(cellHeight) there, \(cell.width)×\(cell.height) here")
        }
        if decodeUs.count < settings.resolvedImageCount {
            differences.append("\(decodeUs.count) images measured, the feed uses \(settings.resolvedImageCount)")
        }
        if filterUs[settings.filter.rawValue] == nil { differences.append("no time for the filter \(settings.filter.rawValue)") }
        return differences.isEmpty ? nil : differences.joined(separator: "; ")
    }

    /// What the terminal shows: the spread of the decodes and each filter.
    var text: String {
        let sorted = decodeUs.sorted()
        func ms(_ quantile: Double) -> String {
            sorted.isEmpty ? "–" : Format.milliseconds(Double(sorted[min(sorted.count - 1, Int(quantile * Double(sorted.count)))]) / 1_000)
        }
        let filters = filterUs.sorted { $0.key < $1.key }.map { "\($0.key) \(Format.milliseconds(Double($0.value) / 1_000))" }
        return "Decodes to the \(cellWidth)×\(cellHeight) cell: \(decodeUs.count) images (seed \(seed), \(format)), median \(ms(0.5)), "
            + "90% under \(ms(0.9)), slowest \(ms(1)); filters on a cell: \(filters.joined(separator: ", ")). "
            + "A virtual run that decodes needs the file: --host-delay-ms FILE."
    }

    /// Sane values only: counts that agree and times no file should be able to make absurd (a
    /// decode of at most 10 s, pixels within the decode limit).
    var isPlausible: Bool {
        decodeUs.count == sourcePixels.count && decodeUs.count == cellBytes.count && decodeUs.count <= FlagRanges.images.upperBound
            && cellBytes.allSatisfy { (1...(1 << 30)).contains($0) }
            && decodeUs.allSatisfy { (0...10_000_000).contains($0) } && sourcePixels.allSatisfy { (1...DecodeLimits().maxPixels).contains($0) }
            && filterUs.values.allSatisfy { (0...10_000_000).contains($0) }
    }
}

/// A virtual run's decodes: each URL's calibrated work and the cores it runs on (`ModelledCPU`,
/// as many as the machine that measured them has).
struct ModelledDecodes: Sendable {
    struct Work: Sendable {
        /// One core's nanoseconds: the decode to the cell, then the filter.
        let decode: UInt64
        let filter: UInt64
        let sourcePixels: Int
        /// What its cell costs the memory cache.
        let cellBytes: Int
    }

    let cpu: ModelledCPU
    private let work: [String: Work]

    /// nil when an image of `images` is not one of `costs`' (a plan the check let through: never
    /// modelled as free).
    init?(_ costs: DecodeCosts, images: [ImageReference], filter: ImageFilter, clock: VirtualClock,
          cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        guard let filterUs = costs.filterUs[filter.rawValue] else { return nil }
        let filterNs = UInt64(filterUs) * 1_000
        var work: [String: Work] = [:]
        for image in images {
            // The corpus's path ends in "img/<id>.<extension>".
            guard let name = image.url.split(separator: "/").last, let id = name.split(separator: ".").first.flatMap({ Int($0) }),
                  costs.decodeUs.indices.contains(id) else { return nil }
            work[image.url] = Work(decode: UInt64(costs.decodeUs[id]) * 1_000, filter: filterNs, sourcePixels: costs.sourcePixels[id],
                                   cellBytes: costs.cellBytes[id])
        }
        (self.work, cpu) = (work, ModelledCPU(cores: cores, clock: clock))
    }

    subscript(url: String) -> Work? { work[url] }
}
