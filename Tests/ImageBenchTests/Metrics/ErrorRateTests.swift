import Foundation
import Testing
@testable import ImageBench

/// One definition of `error_rate`: failed HTTP requests ÷ HTTP requests sent, each attempt its
/// own, a cancelled transfer sent but neither failed nor succeeded; failed requests by status.
@Suite("The error rate and errors by status")
struct ErrorRateTests {
    static func completion(_ outcome: LoadOutcome, attempts: Int = 1, failures: [HTTPFailure] = [], cancelled: Bool = false,
                           source: LoadSource = .network) -> LoadCompletion {
        LoadCompletion(loadID: 0, source: source, outcome: outcome, stages: StageTimes(), bytesReceived: 0, sourcePixels: 0,
                       finishedAt: 0, attempts: attempts, httpFailures: failures, httpCancelled: cancelled)
    }

    @Test("the tally counts each failed attempt by status, a cut transfer as sent, a disk hit as nothing; the rate is failed ÷ sent")
    func tally() {
        var tally = RunTally()
        let image = LoadOutcome.image(DecodedImage(size: PixelSize(width: 1, height: 1), pixels: [0, 0, 0, 0]))
        tally.account(Self.completion(.failed(.fetch(.httpStatus(404))), failures: [.status(404)]))
        tally.account(Self.completion(.failed(.fetch(.httpStatus(404))), failures: [.status(404)]))
        // A 503 a retry cured: two HTTP requests, one failed; the load succeeded.
        tally.account(Self.completion(image, attempts: 2, failures: [.status(503)]))
        tally.account(Self.completion(.failed(.fetch(.timeout())), attempts: 2, failures: [.failure(.timeout), .failure(.timeout)]))
        // Cut by a cancel: sent, neither failed nor succeeded.
        tally.account(Self.completion(.cancelled, cancelled: true))
        tally.account(Self.completion(image))
        tally.account(Self.completion(image, source: .disk))
        var summary = RunSummary()
        summary.httpRequests = 8
        (summary.httpErrorsByStatus, summary.httpErrors) = (HTTPErrorCounts(text: "404:2;503:1;timeout:2")!, 5)
        var run = RunSummary()
        tally.fillErrors(&run)
        #expect(run.httpRequests == 8 && run.httpErrors == 5 && run.httpCancelled == 1, "\(run.httpRequests) \(run.httpErrors)")
        #expect(run.httpErrorsByStatus == summary.httpErrorsByStatus && run.httpErrorsByStatusText == "404:2;503:1;timeout:2")
        #expect(run.errorRate == 5.0 / 8.0)
        // Loads by class are counted apart: three loads failed (two 404s, a timeout), not five.
        #expect(run[errors: .httpStatus] == 2 && run[errors: .timeout] == 1)
    }

    @Test("the rate's definition: http_errors ÷ http_requests whatever was merged, cancelled while queued or shown")
    func definition() {
        var summary = RunSummary()
        (summary.httpRequests, summary.httpErrors, summary.httpCancelled) = (18_528, 8_250, 900)
        // What the old definition read: none of it moves the rate now.
        (summary.errors, summary.networkFetches, summary.merged, summary.cancelledQueued) = (8_340, 13_572, 400, 5_000)
        #expect(summary.errorRate == 8_250.0 / 18_528.0)
        #expect(RunSummary().errorRate == 0, "no request, no rate")
        let fields = Dictionary(uniqueKeysWithValues: summary.fields.map { ($0.name, $0.value) })
        #expect(fields["error_rate"] == .real(8_250.0 / 18_528.0) && fields["http_errors"] == .integer(8_250))
    }

    @Test("statuses are bounded to 100-599 (others are http_status), listed commonest first, read back only when well formed")
    func counts() {
        #expect(HTTPFailure(FetchError.httpStatus(404)) == .status(404))
        #expect(HTTPFailure(FetchError.httpStatus(999)) == .failure(.httpStatus) && HTTPFailure(FetchError.httpStatus(42)) == .failure(.httpStatus))
        #expect(HTTPFailure(FetchError.cancelled(received: 5)) == nil)
        #expect(HTTPFailure(FetchError.tooLarge(limit: 1)) == .failure(.tooLarge))
        var counts = HTTPErrorCounts()
        counts.add(.failure(.timeout), count: 3)
        counts.add(.status(500), count: 3)
        counts.add(.status(404), count: 8_250)
        #expect(counts.listing() == "404 ×8250, 500 ×3, timeout ×3" && counts.total == 8_256)
        #expect(counts.text == "404:8250;500:3;timeout:3" && HTTPErrorCounts(text: counts.text) == counts)
        #expect(counts.listing(limit: 1) == "404 ×8250, and 2 more")
        for bad in ["999:1", "404", "404:x", "404:-1", "bogus:2", "404:1:2"] { #expect(HTTPErrorCounts(text: bad) == nil, "\(bad)") }
        #expect(HTTPErrorCounts(text: "") == HTTPErrorCounts())
    }

    @Test("users and shards combine per status; the rate is recomputed from the sums")
    func combining() throws {
        var a = RunSummary(), b = RunSummary()
        (a.httpRequests, a.httpErrors, a.httpErrorsByStatusText) = (100, 50, "404:48;timeout:2")
        (b.httpRequests, b.httpErrors, b.httpErrorsByStatusText) = (300, 30, "404:20;503:10")
        let total = RunSummary.combining([a, b])
        #expect(total.httpErrorsByStatusText == "404:68;503:10;timeout:2" && total.httpErrors == 80 && total.httpRequests == 400)
        #expect(total.errorRate == 0.2)
        // Read back from summary.csv as written.
        let row = Dictionary(uniqueKeysWithValues: total.fields.map { ($0.name, Format.csv($0.value)) })
        #expect(row["http_errors_by_status"] == "404:68;503:10;timeout:2")
        #expect((try? RunSummary(row: row))?.httpErrorsByStatus == total.httpErrorsByStatus)
        // Not a number: no threshold on it.
        #expect(throws: Threshold.ParseError.self) { try Threshold(parsing: "http_errors_by_status < 1") }
        #expect(try Threshold(parsing: "http_errors <= 0").direction == .lowerIsBetter)
    }

    @Test("a cell over --max-error-rate is not ranked, with its rate, statuses and a hint; under it, or with a higher limit, it is")
    func validity() {
        var summary = VerdictTests.run(.gcd, 5, mean: 10).summary
        (summary.httpRequests, summary.httpErrors, summary.httpErrorsByStatusText) = (18_528, 8_250, "404:8250")
        summary.imagesLoaded = 10_000
        #expect(CellValidity(summary) == .invalid("45% of HTTP requests failed (404 ×8250; over --max-error-rate 1%): is the URL template right?"))
        #expect(ErrorLimit.$maxRate.withValue(0.5) { CellValidity(summary) } == .valid)
        (summary.httpErrors, summary.httpErrorsByStatusText) = (185, "503:185")
        #expect(CellValidity(summary) == .valid, "185 of 18528 is 0.998%")
        (summary.httpErrors, summary.httpErrorsByStatusText) = (186, "503:186")
        #expect(CellValidity(summary).description.hasPrefix("not ranked: 1.0% of HTTP requests failed (503 ×186;"))
    }

    @Test("--max-error-rate takes 5% or 0.05 (0% to 100%); its default is 1%, or 1% above --faults' total; a mistake is one line naming the flag")
    func flag() throws {
        #expect(try RunOptions(parsing: ["--max-error-rate", "5%"]).plan().errorLimit == 0.05)
        #expect(try RunOptions(parsing: ["--max-error-rate", "0.2"]).plan().errorLimit == 0.2)
        #expect(try RunOptions(parsing: []).plan().errorLimit == 0.01)
        // Injected faults fail requests by design: the default leaves room for them, a given limit is kept.
        #expect(abs(try RunOptions(parsing: ["--faults", "error=5%,reset=2%"]).plan().errorLimit - 0.08) < 1e-9)
        #expect(try RunOptions(parsing: ["--faults", "error=5%", "--max-error-rate", "1%"]).plan().errorLimit == 0.01)
        #expect(try RunOptions(parsing: ["--faults", "error=99.5%"]).plan().errorLimit == 1)
        func refusal(_ text: String) -> String {
            do {
                _ = try RunOptions(parsing: ["--max-error-rate", text]).plan()
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(refusal("150%") == "--max-error-rate must be between 0% and 100% (got 150%)")
        #expect(refusal("-1") == "--max-error-rate must be between 0% and 100% (got -1)")
        #expect(refusal("lots") == "--max-error-rate: 'lots' is not a share (like 1% or 0.01)")
        #expect(refusal("nan%") == "--max-error-rate: 'nan%' is not a share (like 1% or 0.01)")
    }
}
