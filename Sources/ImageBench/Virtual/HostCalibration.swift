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

    /// The real run that measures it: one user, `--no-decode`, the events strategy on the multi
    /// transport, a limit of 32, no cancels, the embedded server on `loopback`.
    public static func words(rows: Int) -> [String] {
        ["--no-decode", "--rows", String(rows), "--network", "loopback", "--strategies", "events", "--transport", "multi", "--concurrency", "32",
         "--cancel", "none", "--warmup-seconds", "1", "--repeat", "1"]
    }

    /// Runs the measuring run and reads the delay off its requests.
    public static func measure(rows: Int, observer: (any BenchmarkObserver)? = nil, stop: StopRequest? = nil) throws -> HostCalibration {
        let plan = try RunOptions(parsing: words(rows: rows)).resolved().plan
        let results = try Benchmark.run(plan, observer: observer, stop: stop)
        let frame = UInt64(1_000_000_000 / plan.settings.fps)
        var delays: [UInt64] = []
        for result in results.results {
            for request in result.requests where request.source == .network {
                guard let stages = request.stages, request.errorClass == nil else { continue }
                let vsync = result.origin &+ UInt64(max(0, request.visibleFrame)) &* frame
                let late = request.requestedAt - min(request.requestedAt, vsync)
                delays.append(late &+ stages.queueWait &+ stages.timeToFirstByte &+ stages.transfer)
            }
        }
        guard !delays.isEmpty else { throw BenchmarkError(description: "the calibration run fetched nothing: no delay to measure") }
        delays.sort()
        func ms(_ quantile: Double) -> Double {
            Double(delays[min(delays.count - 1, Int(quantile * Double(delays.count)))]) / 1e6
        }
        let environment = RunEnvironment.capture()
        return HostCalibration(hostDelayMs: (ms(0.5) * 1_000).rounded() / 1_000, p10Ms: ms(0.1), p90Ms: ms(0.9), fetches: delays.count,
                               cpuModel: environment.cpuModel, cpuCount: environment.cpuCount,
                               imgbench: environment.imgbenchVersion, libcurl: environment.libcurl)
    }

    /// What the terminal shows.
    public var text: String {
        """
        Host delay: \(Format.compact(hostDelayMs)) ms per request (median of \(fetches) network fetches on loopback; \
        10% under \(Format.milliseconds(p10Ms)), 90% under \(Format.milliseconds(p90Ms)))
        Measured on \(cpuModel), \(cpuCount) CPUs, imgbench \(imgbench), \(libcurl).
        Use it for virtual runs on this machine: --time virtual --host-delay-ms \(Format.compact(hostDelayMs))
        """
    }
}
