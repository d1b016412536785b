import CShims
import Benchmark
import ImageBench

/// What imgbench's own instrumentation costs per event, and what the pipeline's decode and filter
/// cost per image, on fixed inputs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
                                           maxDuration: .seconds(3), maxIterations: 1_000_000)

    Benchmark("Recorder: one latency into an HdrHistogram",
              configuration: .init(scalingFactor: .kilo)) { benchmark in
        var histogram = LatencyHistogram()
        for index in benchmark.scaledIterations {
            histogram.record(nanoseconds: UInt64(index % 5_000) &* 10_007)
        }
        blackHole(histogram.count)
    }

    // Everything the pipeline and main loop record for one network load: eight clock reads, a
    // load's stage times into seven histograms, its display latency, and its request record.
    Benchmark("Recorder: one request's instrumentation",
              configuration: .init(scalingFactor: .kilo)) { benchmark in
        var stages = StageHistograms()
        var latency = LatencyHistogram()
        var records: [RequestRecord] = []
        records.reserveCapacity(benchmark.scaledIterations.count)
        // Read as the run reads it: through the clock seam.
        let runClock: any RunClock = MonotonicClock()
        for index in benchmark.scaledIterations {
            var clock: UInt64 = 0
            for _ in 0..<8 { clock &+= runClock.now() }
            var times = StageTimes()
            times.queueWait = clock % 1_000_000
            times.timeToFirstByte = 30_000_000
            times.transfer = 2_000_000
            times.decode = 1_500_000
            times.filter = 150_000
            times.delivery = 5_000_000
            stages.record(times, fromNetwork: true)
            latency.record(nanoseconds: 33_333_333)
            var record = RequestRecord(id: index, row: index, imageID: index % 100, url: "http://127.0.0.1/img/1.jpg",
                                       visibleFrame: index, requestedAt: clock, source: .network)
            record.stages = times
            record.latency = 33_333_333
            records.append(record)
        }
        blackHole(records.count)
    }

    let photoSize = PixelSize(width: 1200, height: 900)
    let photo = try! ImageEncoder.jpeg(PhotoSynthesizer.rgb(size: photoSize, seed: 7), size: photoSize, channels: 3, quality: 80)
    let avatarSize = PixelSize(width: 160, height: 160)
    let avatarRGB = PhotoSynthesizer.rgb(size: avatarSize, seed: 8)
    var avatarRGBA = [UInt8]()
    for pixel in 0..<avatarSize.pixelCount { avatarRGBA += avatarRGB[pixel * 3..<pixel * 3 + 3] + [255] }
    let avatar = try! ImageEncoder.png(avatarRGBA, size: avatarSize, layout: .rgba)
    let cell = PixelSize(width: 240, height: 240)

    for (name, bytes) in [("JPEG 1200×900 photo", photo), ("PNG 160×160 RGBA avatar", avatar)] {
        Benchmark("Decode + downsample + sepia: \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                var image = Downsampler.aspectFill(try! ImageDecoder().decode(bytes, targetSize: cell, limits: DecodeLimits()),
                                                   to: cell)
                ImageFilter.sepia.apply(to: &image)
                blackHole(image.pixels.count)
            }
        }
    }

    // The decode stage against libjpeg-turbo alone at the DCT scale the stage picks: what the
    // pipeline adds on top of the library (the fill to the cell, Swift, the header read).
    // The baseline is the plainest use of libjpeg: one scanline at a time into a buffer reused
    // across iterations, straight from C.
    let thumbnailSize = PixelSize(width: 400, height: 300)
    let thumbnail = try! ImageEncoder.jpeg(PhotoSynthesizer.rgb(size: thumbnailSize, seed: 9), size: thumbnailSize, channels: 3, quality: 85)
    for (name, bytes, size) in [("JPEG 1200×900 photo", photo, photoSize), ("JPEG 400×300 thumbnail", thumbnail, thumbnailSize)] {
        Benchmark("Decode stage (straight to the 240×240 cell): \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                let image = Downsampler.aspectFill(try! JPEGDecoder().decode(bytes, targetSize: cell, limits: DecodeLimits()), to: cell)
                blackHole(image.pixels.count)
            }
        }
        let scale = ib_jpeg_scale_for(UInt32(size.width), UInt32(size.height), UInt32(cell.width), UInt32(cell.height))
        Benchmark("libjpeg-turbo alone at the same DCT scale (1/\(scale)): \(name)") { benchmark in
            var width: UInt32 = 0, height: UInt32 = 0, warnings: Int32 = 0
            var message = [CChar](repeating: 0, count: 200)
            _ = ib_jpeg_scaled_size(bytes, bytes.count, scale, &width, &height, &message)
            var output = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
            for _ in benchmark.scaledIterations {
                blackHole(ib_jpeg_decode_rgba(bytes, bytes.count, scale, &output, output.count, &warnings, nil, &message))
            }
        }
    }

    // The same comparison over the generated corpus's JPEGs (sizes and subsampling as a run
    // serves them): one iteration decodes all of them.
    let corpus = ImageCorpus.generate(count: 120, seed: 1, format: .only(.jpeg))
    Benchmark("Decode stage (straight to the 240×240 cell): 120 corpus JPEGs") { benchmark in
        for _ in benchmark.scaledIterations {
            for image in corpus.images {
                blackHole(Downsampler.aspectFill(try! JPEGDecoder().decode(image.bytes, targetSize: cell, limits: DecodeLimits()), to: cell).pixels.count)
            }
        }
    }
    Benchmark("libjpeg-turbo alone at the same DCT scales: 120 corpus JPEGs") { benchmark in
        let scales = corpus.images.map {
            ib_jpeg_scale_for(UInt32($0.size.width), UInt32($0.size.height), UInt32(cell.width), UInt32(cell.height))
        }
        var output = [UInt8](repeating: 0, count: corpus.images.map(\.size.pixelCount).max()! * 4)
        var warnings: Int32 = 0
        var message = [CChar](repeating: 0, count: 200)
        for _ in benchmark.scaledIterations {
            for (image, scale) in zip(corpus.images, scales) {
                blackHole(ib_jpeg_decode_rgba(image.bytes, image.bytes.count, scale, &output, output.count, &warnings, nil, &message))
            }
        }
    }

    Benchmark("Decode at full size, no DCT scaling: JPEG 1200×900 photo") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! ImageDecoder().decode(photo, targetSize: nil, limits: DecodeLimits()).pixels.count)
        }
    }
}
