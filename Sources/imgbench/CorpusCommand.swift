import ArgumentParser
import Foundation
import ImageBench

/// `imgbench corpus --out DIR`: the generated corpus as files, with manifests, for any server.
struct CorpusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus",
        abstract: "Write the generated corpus and its manifests (manifest.json, manifest.csv) to a folder.")

    @Option(help: "The folder to write.")
    var out: String

    @Option(help: "Images to generate.")
    var images = 1_000

    @Option(help: "Seed (the same seed gives the same bytes as a run with that seed).")
    var seed: UInt64 = 1

    @Option(name: .customLong("base-url"), help: "Where the folder will be served, for the manifests' URLs.")
    var baseURL = "http://127.0.0.1:8080"

    @Flag(name: .customLong("no-corpus-cache"), help: "Generate the images afresh instead of loading them from the corpus cache (~/.cache/imgbench).")
    var noCorpusCache = false

    @Flag(name: .customLong("jpeg-only"), help: "Encode every image as JPEG, so a {id}.jpg URL template reaches them all.")
    var jpegOnly = false

    func validate() throws {
        guard images > 0 else { throw ValidationError("--images must be at least 1 (got \(images))") }
        guard let url = URL(string: baseURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--base-url: '\(baseURL)' is not an http(s) URL")
        }
    }

    func run() throws {
        let corpus = ImageCorpus.generate(count: images, seed: seed, format: jpegOnly ? .only(.jpeg) : .mixed, cache: noCorpusCache ? nil : .standard())
        let written = try CommandFailure.catching("cannot write to \(out)") {
            try CorpusExport.write(corpus, to: URL(fileURLWithPath: out), baseURL: baseURL)
        }
        print("Wrote \(written.files) images (\(written.bytes / 1024) kB) and manifest.json, manifest.csv to \(out)/ "
              + "(URLs under \(baseURL))")
    }
}
