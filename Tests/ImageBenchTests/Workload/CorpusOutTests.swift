import Foundation
import Testing
@testable import ImageBench

/// `imgbench corpus --out` as `run --out`: a folder with files is refused without --force, and a
/// corpus written again leaves none of the old one behind.
@Suite("corpus --out")
struct CorpusOutTests {
    @Test("refused when not empty; --force replaces the corpus, removes its stale files and keeps the user's own; the default URLs are said")
    func claimAndStale() throws {
        let root = try Fixtures.temporaryDirectory("corpus-out")
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("corpus").path
        let first = try Fixtures.imgbench(["corpus", "--out", out, "--images", "12", "--formats", "jpeg,png"])
        try #require(first.status == 0, "\(first.output)")
        #expect(first.output.contains("The manifests' URLs point at http://127.0.0.1:8080, the default"), "\(first.output)")
        try "mine".write(toFile: out + "/notes.txt", atomically: true, encoding: .utf8)
        let refused = try Fixtures.imgbench(["corpus", "--out", out, "--images", "5", "--jpeg-only"])
        #expect(refused.status == 64 && refused.output.contains("is not empty: pass --force"), "\(refused.output)")
        let again = try Fixtures.imgbench(["corpus", "--out", out, "--images", "5", "--jpeg-only", "--force", "--base-url", "http://cdn.example"])
        try #require(again.status == 0, "\(again.output)")
        #expect(!again.output.contains("the default"))
        let images = try FileManager.default.contentsOfDirectory(atPath: out + "/img").sorted()
        #expect(images == (0..<5).map { "\($0).jpg" }.sorted(), "\(images)")
        let top = Set(try FileManager.default.contentsOfDirectory(atPath: out))
        #expect(top == ["img", "manifest.json", "manifest.csv", "notes.txt"], "\(top)")
        let manifest = try String(contentsOfFile: out + "/manifest.csv", encoding: .utf8)
        #expect(manifest.contains("http://cdn.example/img/4.jpg") && !manifest.contains("8080"))
    }
}
