import Histogram

/// A run over time, as load tools show it: per second from the cell's start, the requests rows
/// made, the HTTP requests and bytes that completed, the loads that failed, the users still
/// scrolling, and within that second the time to first byte and the whole request (first byte
/// and transfer) of the network loads that completed, and the display latency of the images
/// shown. timeseries.csv writes it; users and shards add up by second.
struct Timeline: Sendable {
    static let intervalNanoseconds: UInt64 = 1_000_000_000

    struct Interval: Sendable, Codable, Equatable {
        /// Rows' requests made (cellForRow) in this second.
        var requests = 0
        /// HTTP requests (attempts) whose loads completed in this second, and their body bytes.
        var httpRequests = 0
        var bytes = 0
        /// Loads that failed in this second, whatever the class.
        var errors = 0
        /// Users whose run covered some of this second.
        var activeUsers = 0
        /// Time to first byte of the network loads that completed in this second. Two
        /// significant digits (1%): a histogram a second, for every second of a long run.
        var ttfb = LatencyHistogram(significantDigits: .two)
        /// The same loads' whole request: first byte and transfer.
        var request = LatencyHistogram(significantDigits: .two)
        /// Display latency of the images shown in this second.
        var display = LatencyHistogram(significantDigits: .two)

        init() {}

        mutating func add(_ other: Interval) {
            requests += other.requests
            httpRequests += other.httpRequests
            bytes += other.bytes
            errors += other.errors
            activeUsers += other.activeUsers
            ttfb.add(other.ttfb)
            request.add(other.request)
            display.add(other.display)
        }
    }

    private(set) var intervals: [Interval] = []

    init() {}

    /// A timeline read back from histograms.json (`imgbench merge`, `imgbench report`).
    init(intervals: [Interval]) { self.intervals = intervals }

    /// The index of the second `offset` nanoseconds after the run's start, created on demand.
    private mutating func second(at offset: UInt64) -> Int {
        let index = Int(offset / Self.intervalNanoseconds)
        while intervals.count <= index { intervals.append(Interval()) }
        return index
    }

    /// A completed load, whatever became of it: its HTTP requests, bytes and failure.
    mutating func completed(_ completion: LoadCompletion, at offset: UInt64) {
        let index = second(at: offset)
        if completion.source == .network { intervals[index].httpRequests += completion.attempts }
        intervals[index].bytes += completion.bytesReceived
        if case .failed = completion.outcome { intervals[index].errors += 1 }
    }

    /// A network load that delivered its image `offset` after the start (the loads the ttfb
    /// stage histogram has): its time to first byte and its whole request.
    mutating func networkLoad(timeToFirstByte: UInt64, transfer: UInt64, at offset: UInt64) {
        let index = second(at: offset)
        intervals[index].ttfb.record(nanoseconds: timeToFirstByte)
        intervals[index].request.record(nanoseconds: timeToFirstByte + transfer)
    }

    /// An image shown `offset` after the start, `nanoseconds` after its row appeared.
    mutating func displayed(latency nanoseconds: UInt64, at offset: UInt64) {
        intervals[second(at: offset)].display.record(nanoseconds: nanoseconds)
    }

    /// The run's end: its requests by the second they were made, and the user active through
    /// every second from its `start` to its `end` (monotonic ns; seconds count from `origin`).
    mutating func finish(requests: [RequestRecord], origin: UInt64, from start: UInt64, to end: UInt64) {
        for request in requests { intervals[second(at: request.requestedAt - min(request.requestedAt, origin))].requests += 1 }
        let (first, last) = (start - min(start, origin), end - min(end, origin))
        guard last > first else { return }
        for index in second(at: first)...second(at: last - 1) { intervals[index].activeUsers += 1 }
    }

    /// Another run's timeline added second by second (users of one cell; a crowd's shared part).
    mutating func add(_ other: Timeline) {
        while intervals.count < other.intervals.count { intervals.append(Interval()) }
        for (index, interval) in other.intervals.enumerated() { intervals[index].add(interval) }
    }
}
