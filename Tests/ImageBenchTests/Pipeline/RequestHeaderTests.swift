import Foundation
import Testing
@testable import ImageBench

@Suite("What a request says about its sender")
struct RequestHeaderTests {
    /// The request bytes a client sent to `listener`, up to the blank line that ends its headers.
    static func request(at listener: Listener, within seconds: Double = 10) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        guard let client = listener.accept(within: seconds) else { return "" }
        defer { _ = Glibc.close(client) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline, !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
            let count = recv(client, &buffer, buffer.count, 0)
            if count > 0 { received += buffer[0..<count] } else if count == 0 { break } else { usleep(10_000) }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// The header lines of the request a fetcher for user 7 sends.
    static func requestLines(namesUsers: Bool, userAgent: String? = nil) throws -> [String] {
        let listener = try Listener()
        defer { listener.close() }
        let finished = DispatchSemaphore(value: 0)
        let url = "http://127.0.0.1:\(listener.port)/img/1.jpg"
        var limits = FetchLimits(timeoutMilliseconds: 2_000, stallMilliseconds: 1_000)
        limits.namesUsers = namesUsers
        limits.userAgent = userAgent
        Thread.detachNewThread { [limits] in
            // Nobody answers: the fetch times out once the request is read.
            _ = try? CurlFetcher(limits: limits, client: 7).fetch(url, expectedBytes: nil, token: LoadToken())
            finished.signal()
        }
        let request = Self.request(at: listener)
        finished.wait()
        let lines = request.components(separatedBy: "\r\n")
        #expect(lines.first == "GET /img/1.jpg HTTP/1.1")
        #expect(lines.contains("Host: 127.0.0.1:\(listener.port)"))
        return lines
    }

    @Test("a request names imgbench and its version once as the User-Agent, and the simulated user it fetches for")
    func userAgentAndClient() throws {
        let lines = try Self.requestLines(namesUsers: true)
        #expect(lines.filter { $0.lowercased().hasPrefix("user-agent:") } == ["User-Agent: imgbench/\(ImageBenchVersion.current)"])
        #expect(lines.contains("X-Imgbench-Client: 7"))
    }

    @Test("to a server that is not imgbench, a request names no user (the User-Agent stays)")
    func noClientForOthers() throws {
        let lines = try Self.requestLines(namesUsers: false)
        #expect(lines.filter { $0.lowercased().hasPrefix("user-agent:") } == ["User-Agent: imgbench/\(ImageBenchVersion.current)"])
        #expect(!lines.contains { $0.lowercased().hasPrefix("x-imgbench-client") }, "\(lines)")
    }

    @Test("--user-agent: a request sends the text given as its one User-Agent, and none for \"\"; a line break, non-ASCII and spaces alone are refused")
    func chosenUserAgent() throws {
        let phone = "FeedApp/3.2 CFNetwork/1404.0.5 Darwin/22.3.0"
        let plan = try RunOptions(parsing: ["--user-agent", phone]).plan()
        #expect(plan.settings.fetchLimits.userAgent == phone)
        let lines = try Self.requestLines(namesUsers: false, userAgent: plan.settings.fetchLimits.userAgent)
        #expect(lines.filter { $0.lowercased().hasPrefix("user-agent:") } == ["User-Agent: \(phone)"])
        let none = try Self.requestLines(namesUsers: false, userAgent: try RunOptions(parsing: ["--user-agent", ""]).plan().settings.fetchLimits.userAgent)
        #expect(!none.contains { $0.lowercased().hasPrefix("user-agent") }, "\(none)")
        let refusal = "--user-agent: printable ASCII only, at most \(FlagRanges.userAgentLength) characters"
        #expect(RunFlagEdgeTests.refusal(["--user-agent", "x\r\nX-Injected: 1"]) == refusal)
        #expect(RunFlagEdgeTests.refusal(["--user-agent", String(repeating: "a", count: FlagRanges.userAgentLength + 1)]) == refusal)
        #expect(RunFlagEdgeTests.refusal(["--user-agent", String(repeating: "a", count: FlagRanges.userAgentLength)]) == "accepted")
        #expect(RunFlagEdgeTests.refusal(["--user-agent", "Café/1.0"]) == refusal)
        #expect(RunFlagEdgeTests.refusal(["--user-agent", "   "]) == "--user-agent: only spaces (\"\" sends no User-Agent)")
        // A plan read back from a file is checked as the flag is.
        var readBack = try RunOptions(parsing: []).plan()
        readBack.settings.fetchLimits.userAgent = "x\r\nX-Injected: 1"
        #expect(throws: PlanError.self) { try readBack.validate() }
        // The default given is the default: the same plan as without the flag.
        #expect(try RunOptions(parsing: ["--user-agent", FetchLimits.defaultUserAgent]).plan().settings.fetchLimits.userAgent == nil)
    }
}
