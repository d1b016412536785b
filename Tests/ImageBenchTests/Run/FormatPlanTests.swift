import Foundation
import Testing
@testable import ImageBench

/// `--formats` as a matrix dimension: the plan, its rules, the flags the gate's children get, and
/// the server drawing delays and faults per picture.
@Suite("Formats in the plan")
struct FormatPlanTests {
    @Test("each strategy × limit runs in each format, formats innermost; the plan keeps them through JSON")
    func cells() throws {
        var options = RunOptions()
        (options.strategies, options.concurrency, options.formats) = ("threads,gcd", "2,5", "jpeg, avif")
        let plan = try options.plan()
        #expect(plan.formats == [.only(.jpeg), .only(.avif)] && plan.measuredRuns == 8)
        #expect(plan.cells.prefix(2).map(\.name) == ["threads ×2 jpeg", "threads ×2 avif"])
        let decoded = try JSONDecoder().decode(BenchmarkPlan.self, from: JSONEncoder().encode(plan))
        #expect(decoded == plan)
        // A plan written before formats existed ran the mix.
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(plan)) as? [String: Any])
        object["formats"] = nil
        #expect(try JSONDecoder().decode(BenchmarkPlan.self, from: JSONSerialization.data(withJSONObject: object)).formats == [.mixed])
    }

    @Test("bad --formats are one-line errors", arguments: [
        ("jpeg,jpeg", nil, "--formats names a format twice"),
        ("heic", nil, "--formats: unknown format 'heic'"),
        (",", nil, "--formats needs at least one value"),
        ("webp", "http://127.0.0.1:1/img/{id}.jpg", "--formats with --source needs a URL template with {ext}"),
        ("jpeg+png", "http://127.0.0.1:1/img/{id}.{ext}", "--source with {ext} needs --formats naming single formats"),
    ])
    func refused(formats: String, source: String?, message: String) {
        var options = RunOptions()
        options.formats = formats
        options.source = source
        #expect { try options.plan() } throws: { error in
            guard let error = error as? PlanError else { return false }
            return error.description.hasPrefix(message) && !error.description.contains("\n")
        }
    }

    @Test("the gate's children get --formats back, and only when it is not the default")
    func arguments() throws {
        var options = RunOptions()
        #expect(!RunArguments(try options.plan()).words.contains("--formats"))
        options.formats = "webp,avif"
        let words = RunArguments(try options.plan()).words
        let index = try #require(words.firstIndex(of: "--formats"))
        #expect(words[index + 1] == "webp,avif")
    }

    @Test("delay and faults are drawn per picture: every format of an image meets the same network")
    func samePicture() {
        #expect(ImageRequestHandler.picture("/img/7.avif") == "/img/7" && ImageRequestHandler.picture("/img/7.jpg") == "/img/7")
        #expect(ImageRequestHandler.picture("/manifest.json") == "/manifest.json")
        #expect(ImageRequestHandler.picture("/a.webp/b") == "/a.webp/b")
        let profile = NetworkProfile.presets[3]
        let delays = ImageFormat.decodable.map { profile.latency(for: ImageRequestHandler.picture("/img/7.\($0.fileExtension)"), seed: 1) }
        #expect(Set(delays).count == 1 && profile.latency(for: "/img/8", seed: 1) != delays[0])
    }

    @Test("with --formats, every format of an image meets the same faults (the server draws per picture)")
    func sameFaults() async throws {
        let failedFirst = try await onOwnThread { () -> [String: Set<Int>] in
            var options = RunOptions()
            (options.rows, options.strategies, options.formats, options.images) = (150, "threads", "webp,avif", 40)
            (options.faults, options.network, options.cancel, options.warmupSeconds) = ("error=20%", "loopback", "none", 0)
            let results = try Benchmark.run(try options.plan())
            // Per format: the images whose first network load failed (no retries: the server's
            // first answer for that image).
            var failed: [String: Set<Int>] = [:]
            for result in results.results {
                var first: [Int: RequestRecord] = [:]
                for record in result.requests where [.network, .error].contains(record.source) && first[record.imageID] == nil {
                    first[record.imageID] = record
                }
                failed[result.summary.format] = Set(first.values.filter { $0.errorClass != nil }.map(\.imageID))
            }
            return failed
        }
        #expect(failedFirst["webp"] == failedFirst["avif"] && (failedFirst["webp"]?.count ?? 0) >= 2, "\(failedFirst)")
    }
}
