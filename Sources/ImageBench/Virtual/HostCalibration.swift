import Foundation

/// `imgbench calibrate`: what this host adds to every request beyond the network, for a virtual
/// run's `--host-delay-ms`. A virtual request leaves at its frame's vsync and is answered after
/// the profile's latency and link time exactly; a real one leaves when the frame's work reaches
/// its row, waits for the network thread to take it, goes through curl and the loopback both
/// ways, and is delivered by the next frame that finds it. On the `loopback` profile (no latency,
/// no link) all of that is the host's, so one real run there measures it: per network fetch, its
/// request's time after the vsync, its queue wait (the limit is high enough that no load waits
/// for a slot) and its time to first byte and transfer. The median is the delay; the spread is
/// printed beside it.
public struct HostCalibration: Sendable, Codable, Equatable {
    /// The median, in milliseconds: what `--host-delay-ms` takes.
    public let hostDelayMs: Double
    public let p10Ms: Double
    public let p90Ms: Double
    /// The network fetches measured.
    public let fetches: Int
    /// Where it was measured: the same machine, build and libcurl are what make it apply.
    public let cpuModel: String
    public let cpuCount: Int
    public let imgbench: String
    public let libcurl: String
    /// Each corpus image's decode and each filter's time, for virtual runs that decode; nil in a
    /// calibration measured without them (`--images 0`, or written before they existed).
    public var decodes: DecodeCosts?

    /// The measuring fling's rows: by default, and what `--rows` may ask.
    public static let defaultRows = 2_000
    public static let rowRange = 200...20_000

    /// The real run that measures it: one user, `--no-decode`, the events strategy on the multi
    /// transport, a limit of 32, no cancels, the embedded server on `loopback`.
    public static func words(rows: Int) -> [String] {
        ["--no-decode", "--rows", String(rows), "--network", "loopback", "--strategies", "events", "--transport", "multi", "--concurrency", "32",
         "--cancel", "none", "--warmup-seconds", "1", "--repeat", "1"]
    }

    /// The images whose decodes are measured by default: the most a feed uses by default (2,000,
    /// from 4,000 rows on: `Feed.defaultImageCount`), so a default run's corpus is covered; and
    /// the range `--images` may ask.
    public static let defaultImages = Feed.defaultImageCount(rows: .max)
    public static let imageRange = 0...FlagRanges.embeddedImages.upperBound

    /// Runs the measuring run and reads the delay off its requests; then, with `images` > 0, times
    /// the decodes of that many images of the corpus `seed` and `format` make (`DecodeCosts`).
    public static func measure(rows: Int, images: Int = 0, seed: UInt64? = nil, format: CorpusFormat = .mixed,
                               observer: (any BenchmarkObserver)? = nil, stop: StopRequest? = nil) throws -> HostCalibration {
        let plan = try RunOptions(parsing: words(rows: rows)).resolved().plan
        let results = try Benchmark.run(plan, observer: observer, stop: stop)
        if let reason = stop?.reason { throw BenchmarkError(description: "stopped by \(reason) before the delay was measured") }
        var delays = delays(in: results)
        guard !delays.isEmpty else { throw BenchmarkError(description: "the calibration run fetched nothing: no delay to measure") }
        delays.sort()
        // Nearest rank, in whole microseconds (as --host-delay-ms takes it).
        func ms(_ quantile: Double) -> Double {
            let rank = min(delays.count - 1, max(0, Int((quantile * Double(delays.count)).rounded(.up)) - 1))
            return (Double(delays[rank]) / 1e3).rounded() / 1e3
        }
        let environment = RunEnvironment.capture()
        var calibration = HostCalibration(hostDelayMs: ms(0.5), p10Ms: ms(0.1), p90Ms: ms(0.9), fetches: delays.count,
                                          cpuModel: environment.cpuModel, cpuCount: environment.cpuCount,
                                          imgbench: environment.imgbenchVersion, libcurl: environment.libcurl)
        guard images > 0 else { return calibration }
        let seed = seed ?? RunSettings().seed
        observer?.preparing("timing the decodes of \(images) images (seed \(seed), \(format)), \(DecodeCosts.repeats) each on one thread")
        calibration.decodes = try DecodeCosts.measure(count: images, seed: seed, format: format,
                                                      progress: { observer?.corpusProgress(done: $0, total: images) },
                                                      shouldStop: { stop?.isRequested == true })
        if let reason = stop?.reason { throw BenchmarkError(description: "stopped by \(reason) before the decodes were timed") }
        return calibration
    }

    /// Per network fetch that ended as fetched (not failed, not cut by a cancel), nanoseconds
    /// from its frame's vsync to its last byte. On a virtual run's loopback that is exactly the
    /// modelled host delay, which is how it is tested.
    static func delays(in results: BenchmarkResults) -> [UInt64] {
        let frame = UInt64(1_000_000_000 / results.plan.settings.fps)
        return results.results.flatMap { result in
            result.requests.compactMap { request -> UInt64? in
                guard request.source == .network, request.errorClass == nil, request.cancel == .none,
                      let stages = request.stages else { return nil }
                let vsync = result.origin &+ UInt64(max(0, request.visibleFrame)) &* frame
                let late = request.requestedAt - min(request.requestedAt, vsync)
                return late &+ stages.queueWait &+ stages.timeToFirstByte &+ stages.transfer
            }
        }
    }

    /// `--host-delay-ms FILE`: the calibration a file holds, refused where it was measured on
    /// another CPU, core count, build or libcurl (each difference named): the host's time is the
    /// host's, and a model given another machine's would be wrong without saying so.
    static func checked(fromFile path: String) throws(PlanError) -> HostCalibration {
        let calibration: HostCalibration
        do {
            calibration = try read(URL(fileURLWithPath: path))
        } catch {
            throw PlanError("--host-delay-ms \(path): not a number of milliseconds nor a file imgbench calibrate --out wrote")
        }
        let here = RunEnvironment.capture()
        let differences = [
            ("CPU", calibration.cpuModel, here.cpuModel), ("CPUs", String(calibration.cpuCount), String(here.cpuCount)),
            ("imgbench", calibration.imgbench, here.imgbenchVersion), ("libcurl", calibration.libcurl, here.libcurl),
        ].filter { $0.1 != $0.2 }.map { "\($0.0) \(UntrustedText.line($0.1, limit: 80)) there, \($0.2) here" }
        guard differences.isEmpty else {
            throw PlanError("--host-delay-ms \(path) was measured on another machine or build (\(differences.joined(separator: "; "))): "
                            + "measure this one with imgbench calibrate")
        }
        guard FlagRanges.hostDelayMs.contains(calibration.hostDelayMs) else {
            throw PlanError("--host-delay-ms \(path): its delay \(calibration.hostDelayMs) ms is outside \(FlagRanges.help(FlagRanges.hostDelayMs))")
        }
        if let decodes = calibration.decodes, !decodes.isPlausible {
            throw PlanError("--host-delay-ms \(path): its decode times are not ones imgbench calibrate writes (counts that differ, or times beyond 10 s)")
        }
        return calibration
    }

    /// The file `imgbench calibrate --out` writes: JSON with snake_case keys, like imgbench's
    /// other files.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(self)
    }

    /// That file read back.
    static func read(_ file: URL) throws -> HostCalibration {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(HostCalibration.self, from: Data(contentsOf: file))
    }

    /// What the terminal shows.
    public var text: String {
        """
        Host delay: \(Format.compact(hostDelayMs)) ms per request (median of \(fetches) network fetches on loopback; \
        10% under \(Format.milliseconds(p10Ms)), 90% under \(Format.milliseconds(p90Ms)))
        Measured on \(cpuModel), \(cpuCount) CPUs, imgbench \(imgbench), \(libcurl).
        Use it for virtual runs on this machine: --time virtual --host-delay-ms \(Format.compact(hostDelayMs))
        """ + (decodes.map { "\n" + $0.text } ?? "")
    }
}
