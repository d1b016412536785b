import Foundation
import Testing
@testable import ImageBench

@Suite("Load models: --duration, --stages, --arrival-rate")
struct LoadModelTests {
    static let stages = LoadModel.stages([LoadStage(seconds: 5, target: 10), LoadStage(seconds: 10, target: 10),
                                          LoadStage(seconds: 5, target: 0)])

    /// The users whose time covers `t`.
    static func active(_ windows: [LoadWindow], at t: Double) -> Int { windows.count { $0.start <= t && t < $0.end } }

    @Test("stages ramp linearly: at every moment the users scrolling are the target rounded down")
    func stagesFollowTheTarget() {
        let windows = Self.stages.windows(clients: 1)
        #expect(windows.count == 10)
        #expect(windows.allSatisfy { $0.loops })
        for step in 0..<200 {
            let t = Double(step) / 10 + 0.05
            let target = t < 5 ? t * 2 : t < 15 ? 10 : (20 - t) * 2
            #expect(Self.active(windows, at: t) == Int(target.rounded(.down)), "t = \(t)")
        }
        #expect(Self.stages.seconds == 20)
    }

    @Test("a ramp that falls and rises again brings new users for the second rise")
    func fallingAndRising() {
        let model = LoadModel.stages([LoadStage(seconds: 2, target: 4), LoadStage(seconds: 2, target: 0), LoadStage(seconds: 2, target: 2)])
        let windows = model.windows(clients: 1)
        // The first hill: three users (the fourth is wanted only at the instant of its top); the
        // second: one more span for the first user (the second is wanted only at the very end).
        #expect(windows.count == 4)
        #expect(windows.count { $0.start >= 4 } == 1)
        #expect(Self.active(windows, at: 3.9) == 0)
        #expect(Self.active(windows, at: 5.9) == 1)
    }

    @Test("an arrival rate brings rate × duration users, one every 1/rate seconds, each for one session")
    func arrivals() {
        let windows = LoadModel.arrivalRate(perSecond: 5, seconds: 20).windows(clients: 1)
        #expect(windows.count == 100)
        #expect(windows[1].start == 0.2 && windows[99].start == 19.8)
        #expect(windows.allSatisfy { !$0.loops && $0.end == .infinity })
        #expect(LoadModel.arrivalRate(perSecond: 5, seconds: 20.1).users(clients: 1) == 101)
        #expect(LoadModel.duration(seconds: 30).windows(clients: 3) == Array(repeating: LoadWindow(start: 0, end: 30, loops: true), count: 3))
    }

    @Test("flags: durations, stages and rates parse; conflicts and nonsense are one-line errors naming the flag",
          arguments: [
            (["--arrival-rate", "5/s"], "--arrival-rate needs --duration"),
            (["--arrival-rate", "5/fortnight", "--duration", "3s"], "--arrival-rate: '5/fortnight' is not a rate"),
            (["--arrival-rate", "5", "--duration", "3s", "--stages", "1s:2"], "two load models"),
            (["--stages", "3s:5", "--clients", "4"], "--stages sets the number of users"),
            (["--stages", "3s:5", "--duration", "4s"], "disagree"),
            (["--stages", "3s"], "is not DURATION:USERS"),
            (["--stages", "1s:0"], "every target is 0 users"),
            (["--stages", "1s:2000"], "--stages users must be between 0 and 1000"),
            (["--duration", "soon"], "is not a duration"),
            (["--duration", "0s"], "--duration must be between 0.1 and 86400"),
            (["--arrival-rate", "1000/s", "--duration", "1h"], "users in all) must be between 1 and 10000"),
          ])
    func flagErrors(arguments: [String], message: String) throws {
        var options = RunOptions()
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next()!
            switch flag {
            case "--arrival-rate": options["arrival-rate"] = value
            case "--duration": options["duration"] = value
            case "--stages": options["stages"] = value
            case "--clients": options["clients"] = value
            default: Issue.record("unknown flag \(flag)")
            }
        }
        #expect(throws: PlanError.self) { try options.plan() }
        do {
            _ = try options.plan()
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test("flags set the model and the users: --stages its largest target, --arrival-rate rate × duration")
    func flagsSetUsers() throws {
        var options = try RunOptions(parsing: ["--stages", "5s:10,10s:10,5s:0", "--duration", "20s"])
        var plan = try options.plan()
        #expect(plan.settings.load == Self.stages && plan.settings.clients == 10)
        options = try RunOptions(parsing: ["--arrival-rate", "300/m", "--duration", "2m"])
        plan = try options.plan()
        #expect(plan.settings.load == .arrivalRate(perSecond: 5, seconds: 120) && plan.settings.clients == 600)
        options = try RunOptions(parsing: ["--duration", "1.5m", "--clients", "3"])
        plan = try options.plan()
        #expect(plan.settings.load == .duration(seconds: 90) && plan.settings.clients == 3)
        #expect(RunArguments(plan).words.joined(separator: " ").contains("--clients 3 --duration 90s"))
    }

    @Test("the gate's children get the model back as flags, and no --clients where the model brings its users")
    func gateArguments() throws {
        var options = try RunOptions(parsing: ["--stages", "5s:10,10s:10,5s:0", "--duration", "20s"])
        let words = RunArguments(try options.plan()).words
        #expect(!words.contains("--clients"))
        #expect(words.joined(separator: " ").contains("--stages 5s:10,10s:10,5s:0"))
        options = try RunOptions(parsing: ["--arrival-rate", "2.5", "--duration", "8s"])
        let open = RunArguments(try options.plan()).words.joined(separator: " ")
        #expect(open.contains("--arrival-rate 2.5/s --duration 8s") && !open.contains("--clients"))
    }
}

extension ChildProcessRuns {
    /// The load models against a real third-party server: nginx serving `imgbench corpus` output.
    @Suite("Load models against nginx", .serialized)
    struct LoadModelNginxTests {
        static func table(_ url: URL) throws -> [[String: String]] {
            let rows = CSVTable.parse(try String(contentsOf: url, encoding: .utf8))
            return rows.dropFirst().filter { $0.count == rows[0].count }.map { Dictionary(uniqueKeysWithValues: zip(rows[0], $0)) }
        }

        @Test("--duration 10s --stages 3s:10,4s:10,3s:0 follows the stages in timeseries.csv within one second; --arrival-rate 5/s --duration 10s brings 50 users")
        func stagesAndArrivals() async throws {
            try await onOwnThread {
                let root = try Fixtures.temporaryDirectory("load-models")
                defer { try? FileManager.default.removeItem(at: root) }
                let port = try Nginx.freePort()
                let corpus = root.appendingPathComponent("corpus")
                let written = try Fixtures.imgbench(["corpus", "--out", corpus.path, "--images", "50", "--jpeg-only",
                                                     "--base-url", "http://127.0.0.1:\(port)"])
                try #require(written.status == 0, "\(written.output)")
                let nginx = try Nginx(root: corpus, port: port)
                defer { nginx.stop() }
                let common = ["--source", "http://127.0.0.1:\(port)/manifest.json", "--no-decode", "--rows", "200",
                              "--strategies", "events", "--transport", "multi"]

                let ramp = root.appendingPathComponent("ramp")
                // 10 s, not the 20 s of the in-process tests' stages: these seconds are the child-process
                // chain's, the ThreadSanitizer pass's critical path.
                let ramped = try Fixtures.imgbench(common + ["--duration", "10s", "--stages", "3s:10,4s:10,3s:0", "--out", ramp.path])
                try #require(ramped.status == 0, "\(ramped.output)")
                let windows = LoadModel.stages([LoadStage(seconds: 3, target: 10), LoadStage(seconds: 4, target: 10),
                                                LoadStage(seconds: 3, target: 0)]).windows(clients: 1)
                // Users whose time touches second `s` (a session ends at the first frame past its time).
                func expected(_ s: Int) -> Int { windows.count { $0.start < Double(s + 1) && $0.end > Double(s) } }
                let seconds = try Self.table(ramp.appendingPathComponent("timeseries.csv"))
                #expect(seconds.count >= 10 && seconds.count <= 11)
                for (s, row) in seconds.enumerated() {
                    let active = Int(row["active_users"] ?? "") ?? -1
                    let near = (max(0, s - 1)...s + 1).map(expected)
                    #expect(near.min()! <= active && active <= near.max()!, "second \(s): \(active) users, stages say \(near)")
                }
                #expect(seconds[4...5].allSatisfy { $0["active_users"] == "10" })
                let users = try Self.table(ramp.appendingPathComponent("clients.csv"))
                #expect(users.count == 10)
                // Users looped their traces: each (4 s or more of time, a trace of about 2 s) asked
                // for rows in frames past its first trace's end, which only a second session scrolls
                // (after a trace's end the content rests and no row appears).
                let requests = try Self.table(ramp.appendingPathComponent("requests.csv"))
                var settings = RunSettings()
                settings.rows = 200
                let first = Workload(feed: Feed(rows: 200, imageCount: 1, seed: 1), images: [ImageReference(url: "", expectedBytes: nil, sourcePixels: nil)],
                                     viewport: Viewport(rowCount: 200),
                                     trace: ScrollTrace.generate(profile: settings.scroll, viewport: Viewport(rowCount: 200), fps: settings.fps, seed: settings.seed))
                for user in users.compactMap({ $0["client"].flatMap(Int.init) }) {
                    let frames = first.forClient(user, settings: settings).trace.frames.count
                    let last = requests.filter { $0["client"] == String(user) }.compactMap { $0["visible_frame"].flatMap(Int.init) }.max() ?? -1
                    #expect(last >= frames, "user \(user): last row appeared in frame \(last), its first trace has \(frames)")
                }

                let open = root.appendingPathComponent("open")
                let arrived = try Fixtures.imgbench(common + ["--arrival-rate", "5/s", "--duration", "10s", "--out", open.path])
                try #require(arrived.status == 0, "\(arrived.output)")
                let sessions = Set(try Self.table(open.appendingPathComponent("requests.csv")).compactMap { $0["client"] })
                #expect(abs(sessions.count - 50) <= 1, "\(sessions.count) users made requests")
                #expect(try Self.table(open.appendingPathComponent("clients.csv")).count == 50)
                let opened = try Self.table(open.appendingPathComponent("timeseries.csv"))
                // Five users arrive every second: the first second has five.
                #expect(opened.first?["active_users"] == "5")
            }
        }
    }
}
