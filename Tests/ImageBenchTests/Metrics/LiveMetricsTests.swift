import Foundation
import Testing
@testable import ImageBench

/// `--metrics-address`: the address flag, and the live counts against summary.csv's, in process.
@Suite("Live metrics")
struct LiveMetricsTests {
    /// Each sample of `name` in an exposition: its labels' text and its value.
    static func samples(_ name: String, in exposition: [UInt8]) -> [(labels: String, value: Double)] {
        String(decoding: exposition, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard line.hasPrefix(name + "{"), let close = line.lastIndex(of: "}"),
                  let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)) else { return nil }
            return (String(line[line.index(line.startIndex, offsetBy: name.count + 1)..<close]), value)
        }
    }

    @Test("--metrics-address takes HOST:PORT (IPv6 in brackets), port 1 to 65535, and stays out of the plan")
    func address() throws {
        let output = try RunOptions(parsing: ["--metrics-address", "127.0.0.1:9464"]).resolved().output
        #expect(output.metricsAddress == MetricsAddress(host: "127.0.0.1", port: 9464))
        #expect(try MetricsAddress(parsing: "[::1]:9464") == MetricsAddress(host: "::1", port: 9464))
        #expect(MetricsAddress(host: "::1", port: 80).url == "http://[::1]:80/metrics")
        func refusal(_ text: String) -> String {
            do {
                _ = try RunOptions(parsing: ["--metrics-address", text]).resolved()
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(refusal("localhost:65535") == "accepted")
        #expect(refusal("127.0.0.1:0") == "--metrics-address's port must be between 1 and 65535 (got 0)")
        #expect(refusal("127.0.0.1:65536") == "--metrics-address's port must be between 1 and 65535 (got 65536)")
        #expect(refusal("127.0.0.1:http") == "--metrics-address's port: 'http' is not a whole number")
        #expect(refusal("9464").hasPrefix("--metrics-address: '9464' is not HOST:PORT"))
        #expect(refusal(":9464").hasPrefix("--metrics-address: ':9464' is not HOST:PORT"))
        #expect(refusal("::1:9464").hasPrefix("--metrics-address: '::1:9464' is not HOST:PORT"))
        let plan = try RunOptions(parsing: ["--metrics-address", "127.0.0.1:9464", "--rows", "50"]).plan()
        #expect(!RunArguments(plan).words.contains("--metrics-address"))
    }

    @Test("a report's attempts become statuses that sum to them: failures by status or class, a cut one cancelled, the rest 2xx")
    func statuses() {
        let live = LiveMetrics()
        let cell = live.cell(RunCell(strategy: .gcd, concurrency: 5, repetition: 1))
        var stages = StageTimes()
        (stages.timeToFirstByte, stages.transfer) = (20_000_000, 30_000_000)
        var retried = LoadCompletion(loadID: 0, source: .network, outcome: .cancelled, stages: stages, bytesReceived: 1_000,
                                     sourcePixels: 0, finishedAt: 0, attempts: 4)
        retried.httpFailures = [.status(503), .failure(.timeout)]
        retried.httpCancelled = true
        cell.account(retried)
        cell.account(LoadCompletion(loadID: 1, source: .network, outcome: .failed(.fetch(.httpStatus(404))), stages: stages,
                                    bytesReceived: 10, sourcePixels: 0, finishedAt: 0, httpFailures: [.status(404)]))
        cell.account(LoadCompletion(loadID: 2, source: .disk, outcome: .cancelled, stages: stages, bytesReceived: 0, sourcePixels: 0, finishedAt: 0))
        cell.userBegan()
        let text = live.exposition()
        let requests = Dictionary(uniqueKeysWithValues: Self.samples("imgbench_http_requests_total", in: text).map { sample in
            (sample.labels.components(separatedBy: "status=\"").last!.dropLast(), sample.value)
        })
        #expect(requests == ["503": 1, "timeout": 1, "cancelled": 1, "2xx": 1, "404": 1])
        #expect(Self.samples("imgbench_http_requests_total", in: text).allSatisfy { $0.labels.hasPrefix("strategy=\"gcd\",limit=\"5\",format=\"jpeg+png\"") })
        #expect(Self.samples("imgbench_bytes_received_total", in: text).map(\.value) == [1_010])
        #expect(Self.samples("imgbench_errors_total", in: text).map(\.labels).first?.hasSuffix("class=\"http_status\"") == true)
        // One observation per network load: 50 ms, in the 0.05 bucket.
        #expect(Self.samples("imgbench_http_request_duration_seconds_count", in: text).map(\.value) == [2])
        #expect(Self.samples("imgbench_http_request_duration_seconds_bucket", in: text).first { $0.labels.hasSuffix("le=\"0.05\"") }?.value == 2)
        #expect(Self.samples("imgbench_http_request_duration_seconds_bucket", in: text).first { $0.labels.hasSuffix("le=\"0.025\"") }?.value == 0)
        #expect(Self.samples("imgbench_time_to_first_byte_seconds_bucket", in: text).first { $0.labels.hasSuffix("le=\"0.025\"") }?.value == 2)
        #expect(Self.samples("imgbench_active_users", in: text).map(\.value) == [1])
    }

    @Test("a run with faults and retries counts live what summary.csv counts: requests by status, bytes, one duration per load")
    func agreesWithSummary() async throws {
        try await onOwnThread {
            let plan = try RunOptions(parsing: ["--rows", "200", "--images", "60", "--strategies", "gcd", "--clients", "2", "--no-decode",
                                                "--faults", "error=20%,reset=5%", "--retries", "1", "--network", "loopback",
                                                "--warmup-seconds", "1", "--cancel", "none,offscreen"]).plan()
            let live = LiveMetrics()
            let results = try Benchmark.run(plan, metrics: live)
            let text = live.exposition()
            let summaries = results.results.map(\.summary)
            let statuses = Self.samples("imgbench_http_requests_total", in: text)
            #expect(statuses.reduce(0) { $0 + $1.value } == Double(summaries.reduce(0) { $0 + $1.httpRequests }))
            var failures = HTTPErrorCounts()
            for summary in summaries { failures.add(summary.httpErrorsByStatus) }
            #expect(failures.total > 0, "the faults made no failure")
            for (failure, count) in failures.counts {
                #expect(statuses.filter { $0.labels.hasSuffix("status=\"\(failure)\"") }.reduce(0) { $0 + $1.value } == Double(count), "\(failure)")
            }
            #expect(statuses.filter { $0.labels.hasSuffix("status=\"cancelled\"") }.reduce(0) { $0 + $1.value }
                    == Double(summaries.reduce(0) { $0 + $1.httpCancelled }))
            #expect(Self.samples("imgbench_bytes_received_total", in: text).reduce(0) { $0 + $1.value }
                    == Double(summaries.reduce(0) { $0 + $1.bytesDownloaded }))
            // Each cell apart (the varied policy is a label); the users are gone.
            #expect(Set(statuses.map { $0.labels.contains("cancel=\"none\"") }) == [true, false])
            #expect(Self.samples("imgbench_active_users", in: text).map(\.value) == [0, 0])
            // A load with a retry is one observation of two requests: fewer observations than requests.
            let loads = Self.samples("imgbench_http_request_duration_seconds_count", in: text).reduce(0) { $0 + $1.value }
            #expect(loads > 0 && loads <= statuses.reduce(0) { $0 + $1.value })
        }
    }
}
