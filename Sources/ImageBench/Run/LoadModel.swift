import Foundation

/// How many simulated users scroll when (`--duration`, `--stages`, `--arrival-rate`), in the
/// terms of k6's executors. Without one, each of `--clients` users scrolls its trace once.
///
/// - `duration`: a closed model at a constant size (k6's constant-vus): `--clients` users each
///   scroll session after session until the time is up.
/// - `stages`: a closed model whose size ramps (k6's ramping-vus): the number of users scrolling
///   follows straight lines between the stages' targets, each user looping sessions while it is
///   counted. A closed model waits: a slow server slows its own load.
/// - `arrivalRate`: an open model (k6's constant-arrival-rate): a new user arrives every 1/rate
///   seconds, scrolls one session of its own and leaves, however slow the server is, so the
///   load does not back off when responses do (the coordinated-omission trap of closed models).
///
/// A session cut short by the end of its user's time stops there, as a user putting the phone
/// away: what it was still loading is cancelled.
enum LoadModel: Sendable, Equatable, Codable {
    case duration(seconds: Double)
    case stages([LoadStage])
    case arrivalRate(perSecond: Double, seconds: Double)

    /// Users over the whole run: those that loop (`duration`), one per span of a stage slot's
    /// time (a ramp that falls and rises again brings new users), or the users that arrive.
    func users(clients: Int) -> Int { windows(clients: clients).count }

    /// How long the load lasts (a session under way at its end is cut there; `arrivalRate`'s
    /// last users still finish theirs).
    var seconds: Double {
        switch self {
        case .duration(let seconds), .arrivalRate(_, let seconds): return seconds
        case .stages(let stages): return stages.reduce(0) { $0 + $1.seconds }
        }
    }

    /// Each user's time, in the users' order (user `i` is simulated user `i`, its trace seeded by
    /// the seed plus `i`).
    func windows(clients: Int) -> [LoadWindow] {
        switch self {
        case .duration(let seconds):
            return Array(repeating: LoadWindow(start: 0, end: seconds, loops: true), count: clients)
        case .arrivalRate(let rate, let seconds):
            let count = Int((rate * seconds - 1e-9).rounded(.down)) + 1
            return (0..<count).map { LoadWindow(start: Double($0) / rate, end: .infinity, loops: false) }
        case .stages(let stages):
            let slots = stages.map(\.target).max() ?? 0
            return (0..<slots).flatMap { Self.windows(forSlot: $0, stages: stages) }
        }
    }

    /// Slot `user` is filled while the ramped target is above it: at least `user + 1` users wanted.
    private static func windows(forSlot user: Int, stages: [LoadStage]) -> [LoadWindow] {
        var windows: [LoadWindow] = []
        var (time, level) = (0.0, 0.0)
        let wanted = Double(user + 1)
        for stage in stages {
            let (from, to, end) = (level, Double(stage.target), time + stage.seconds)
            // The part of [time, end] where the line from `from` to `to` is at least `wanted`.
            var span: (Double, Double)?
            if from >= wanted && to >= wanted {
                span = (time, end)
            } else if from < wanted && to >= wanted {
                span = (time + (wanted - from) / (to - from) * stage.seconds, end)
            } else if from >= wanted && to < wanted {
                span = (time, time + (from - wanted) / (from - to) * stage.seconds)
            }
            if let (start, stop) = span, stop > start {
                if let last = windows.last, abs(last.end - start) < 1e-9 {
                    windows[windows.count - 1].end = stop
                } else {
                    windows.append(LoadWindow(start: start, end: stop, loops: true))
                }
            }
            (time, level) = (end, to)
        }
        return windows
    }
}

/// One stage of `--stages`: over `seconds`, the number of users moves in a straight line to `target`.
struct LoadStage: Sendable, Equatable, Codable {
    var seconds: Double
    var target: Int

    init(seconds: Double, target: Int) {
        self.seconds = seconds
        self.target = target
    }
}

/// A span of a user's time, in seconds from the run's start; `loops`: sessions follow one
/// another until `end` (else one session, however long).
struct LoadWindow: Sendable, Equatable {
    var start: Double
    var end: Double
    var loops: Bool
}

extension LoadModel {
    /// The model as `imgbench run` flags (the gate's children run it again).
    var flags: [String] {
        switch self {
        case .duration(let seconds): return ["--duration", FlagRanges.text(seconds) + "s"]
        case .stages(let stages):
            return ["--stages", stages.map { FlagRanges.text($0.seconds) + "s:\($0.target)" }.joined(separator: ",")]
        case .arrivalRate(let rate, let seconds): return ["--arrival-rate", FlagRanges.text(rate) + "/s", "--duration", FlagRanges.text(seconds) + "s"]
        }
    }

    /// "20s", "2m", "1h", "500ms" or a bare number of seconds, within `FlagRanges.loadSeconds`.
    static func seconds(parsing text: String, flag: String) throws(PlanError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600)]
        let (number, scale) = units.first { trimmed.hasSuffix($0.0) }.map { (String(trimmed.dropLast($0.0.count)), $0.1) } ?? (trimmed, 1)
        guard let value = Double(number), value.isFinite else {
            throw PlanError("\(flag): '\(text)' is not a duration (e.g. 30s, 2m, 1h, 500ms)")
        }
        return try FlagRanges.check(value * scale, in: FlagRanges.loadSeconds, flag)
    }

    /// `--stages 30s:100,2m:100,30s:0`: durations and the number of users at each one's end.
    static func stages(parsing text: String) throws(PlanError) -> [LoadStage] {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !items.isEmpty, !items.contains(where: \.isEmpty) else { throw PlanError("--stages: expected DURATION:USERS,…, e.g. 30s:100,2m:100,30s:0") }
        let stages = try items.map { item throws(PlanError) -> LoadStage in
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let target = Int(parts[1]) else {
                throw PlanError("--stages: '\(item)' is not DURATION:USERS (e.g. 30s:100)")
            }
            return LoadStage(seconds: try seconds(parsing: String(parts[0]), flag: "--stages"),
                             target: try FlagRanges.check(target, in: 0...FlagRanges.clients.upperBound, "--stages users"))
        }
        try FlagRanges.check(stages.reduce(0) { $0 + $1.seconds }, in: FlagRanges.loadSeconds, "--stages (in all)")
        guard stages.contains(where: { $0.target > 0 }) else { throw PlanError("--stages: every target is 0 users") }
        return stages
    }

    /// `--arrival-rate 5/s` (or /m, /h; a bare number is per second): users arriving a second.
    static func rate(parsing text: String) throws(PlanError) -> Double {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let per: [String: Double] = ["s": 1, "m": 60, "h": 3_600]
        guard parts.count <= 2, let count = Double(parts[0]), count.isFinite, let scale = parts.count == 2 ? per[parts[1]] : 1 else {
            throw PlanError("--arrival-rate: '\(text)' is not a rate (e.g. 5/s, 300/m)")
        }
        return try FlagRanges.check(count / scale, in: FlagRanges.arrivalRate, "--arrival-rate (users a second)")
    }
}
