import Foundation
import Testing
@testable import ImageBench

/// `--formats` as a matrix dimension: the plan, its rules, the flags the gate's children get, and
/// the server drawing delays and faults per picture.
@Suite("Formats in the plan")
struct FormatPlanTests {
    @Test("each strategy × limit runs in each format, formats innermost; the plan keeps them through JSON")
    func cells() throws {
        let options = try RunOptions(parsing: ["--strategies", "threads,gcd", "--concurrency", "2,5", "--formats", "jpeg, avif"])
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
        ("jpeg,jpeg", nil, "--formats 'jpeg,jpeg': 'jpeg' is given twice"),
        ("heic", nil, "--formats: unknown format 'heic'"),
        (",", nil, "--formats ',': item 1 is empty"),
        ("", nil, "--formats needs at least one value"),
        ("webp", "http://127.0.0.1:1/img/{id}.jpg", "--formats with --source needs a URL template with {ext}"),
        ("jpeg+png", "http://127.0.0.1:1/img/{id}.{ext}", "--source with {ext} needs --formats naming single formats"),
    ])
    func refused(formats: String, source: String?, message: String) {
        var options = RunOptions()
        options["formats"] = formats
        options["source"] = source
        #expect { try options.plan() } throws: { error in
            guard let error = error as? PlanError else { return false }
            return error.description.hasPrefix(message) && !error.description.contains("\n")
        }
    }

    @Test("the gate's children get --formats back, and only when it is not the default")
    func arguments() throws {
        var options = RunOptions()
        #expect(!RunArguments(try options.plan()).words.contains("--formats"))
        options["formats"] = "webp,avif"
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

    @Test("with --formats the server draws faults per picture: each image's first answer is the same in every format; per file otherwise")
    func sameFaults() async throws {
        let answers = try await onOwnThread { () -> [Bool: [[Int]]] in
            // 60 WebP and AVIF encodes: seconds of CPU, here rather than on a cooperative thread.
            let corpora = [ImageFormat.webp, .avif].map { ImageCorpus.generate(count: 30, seed: 3, format: .only($0)) }
            var answers: [Bool: [[Int]]] = [:]
            for perPicture in [true, false] {
                let server = try ImageServer(files: ServedFiles(corpora: corpora), profile: NetworkProfile.presets[0], seed: 3,
                                             faults: try ServerFaults(parsing: "error=30%"), drawsPerPicture: perPicture)
                defer { server.shutdown() }
                let fetcher = CurlFetcher(limits: FetchLimits(timeoutMilliseconds: 5_000, stallMilliseconds: 1_000))
                // Each file's first request: 200, or the status of the fault drawn for it.
                answers[perPicture] = corpora.map { corpus in
                    corpus.images.map { image in Self.firstAnswer(fetcher, "\(server.baseURL)/\(image.path)") }
                }
            }
            return answers
        }
        let perPicture = try #require(answers[true]), perFile = try #require(answers[false])
        #expect(perPicture[0] == perPicture[1] && perPicture[0].filter { $0 != 200 }.count >= 3, "\(perPicture)")
        #expect(perFile[0] != perFile[1], "per-file draws differ between formats: \(perFile)")
    }

    /// 200, or the HTTP status a request was answered with (-1 for anything else).
    static func firstAnswer(_ fetcher: CurlFetcher, _ url: String) -> Int {
        switch Result(catching: { () throws(FetchError) in try fetcher.fetch(url, expectedBytes: nil, token: LoadToken()) }) {
        case .success: return 200
        case .failure(.httpStatus(let status, _)): return status
        case .failure: return -1
        }
    }
}
