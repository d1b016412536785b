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

    @Option(name: .customLong("base-url"), help: "Where the folder will be served, for the manifests' URLs (default: \(Self.defaultBaseURL)).")
    var baseURLGiven: String?

    @Flag(help: "Write into an --out folder that already holds files: the corpus's own files (img/<id>.<ext>, manifest*) are replaced and stale ones removed; nothing else is touched.")
    var force = false

    static let defaultBaseURL = "http://127.0.0.1:8080"
    var baseURL: String { baseURLGiven ?? Self.defaultBaseURL }

    @Flag(name: .customLong("no-corpus-cache"), help: "Generate the images afresh instead of loading them from the corpus cache (~/.cache/imgbench).")
    var noCorpusCache = false

    @Flag(name: .customLong("jpeg-only"), help: "Encode every image as JPEG, so a {id}.jpg URL template reaches them all (--formats jpeg).")
    var jpegOnly = false

    @Option(help: "Formats, comma-separated: \(CorpusFormat.all.map(\.description).joined(separator: ", ")) (the same pictures in each; img/{id}.{ext}, a manifest per format).", completion: .list(CorpusFormat.all.map(\.description)))
    var formats = CorpusFormat.mixed.description

    func validate() throws {
        guard (1...FlagRanges.embeddedImages.upperBound).contains(images) else {
            throw ValidationError("--images must be 1 to \(FlagRanges.embeddedImages.upperBound) (got \(images))")
        }
        _ = try parsedFormats()
        guard let url = URL(string: baseURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--base-url: '\(baseURL)' is not an http(s) URL")
        }
    }

    func run() throws {
        let formats = try parsedFormats()
        let corpora = formats.map { format in
            (format, ImageCorpus.generate(count: images, seed: seed, format: format, cache: noCorpusCache ? nil : .standard()))
        }
        // Claimed as run's --out is: a folder holding files is refused without --force.
        let directory = URL(fileURLWithPath: out)
        let claim: OutputClaim
        do {
            claim = try OutputClaim.claim(directory, force: force)
        } catch {
            throw CommandFailure(error.description, status: error.usage ? 64 : 2)
        }
        var done = false
        defer { claim.release(wroteResults: done) }
        let written = try CommandFailure.catching("cannot write to \(out)") {
            let written = try CorpusExport.write(corpora, to: directory, baseURL: baseURL)
            // A corpus written again with fewer images or other formats leaves none of the old behind.
            try CorpusExport.removeStale(in: directory, keeping: corpora)
            return written
        }
        done = true
        for (format, corpus) in corpora where formats.count > 1 {
            print("\(format): \(corpus.images.count) images, \(corpus.totalBytes / 1024) kB, manifest-\(format).json")
        }
        print("Wrote \(written.files) images (\(written.bytes / 1024) kB) and manifest.json, manifest.csv to \(out)/ "
              + "(URLs under \(baseURL))")
        if baseURLGiven == nil {
            print("The manifests' URLs point at \(baseURL), the default: serve the folder there "
                  + "(imgbench serve --corpus \(out) --port 8080), or write them for your server with --base-url http://HOST:PORT.")
        }
    }

    /// `--formats`, or `--jpeg-only` (which names one format itself).
    func parsedFormats() throws -> [CorpusFormat] {
        let names = formats.split(separator: ",").map(String.init)
        var parsed: [CorpusFormat] = []
        for name in names {
            do { parsed.append(try CorpusFormat(parsing: name)) } catch { throw ValidationError(error.description) }
        }
        guard !jpegOnly else {
            guard formats == CorpusFormat.mixed.description else { throw ValidationError("--jpeg-only and --formats: give one") }
            return [.only(.jpeg)]
        }
        guard !parsed.isEmpty, Set(parsed).count == parsed.count else { throw ValidationError("--formats: one or more formats, each once") }
        return parsed
    }
}
