import Foundation

/// Where the feed's images come from (`--source`).
enum ImageSource: Sendable, Equatable {
    /// The generated corpus on the embedded server, shaped by the network profile (the default).
    case embedded
    /// A URL template: `{id}` is the image (images repeat down the feed with the usual skew),
    /// `{row}` the row (every row its own image); `{ext}` the file extension of each of
    /// `--formats` (`imgbench corpus --formats` writes `img/{id}.{ext}`).
    case template(String)
    /// The images a manifest lists (a file, or a URL fetched before the run); row i shows entry i
    /// unless `--feed zipf`.
    case manifest(path: String, entries: [ManifestEntry])
    /// A URL that answers with a manifest (`imgbench serve`'s `/manifest.json`, a CDN's listing):
    /// fetched when the benchmark prepares, then a `.manifest`.
    case manifestURL(String)

    struct ParseError: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    /// `--source VALUE`: a URL template (with `{id}` or `{row}`), a manifest's URL (without them),
    /// or a manifest file (.json, .csv, .plist).
    /// `manifestLimit`: of a manifest file, read only the entries the run can reach.
    init(parsing value: String, manifestLimit: Int? = nil) throws(ParseError) {
        if value.contains("://") {
            guard value.contains("{id}") || value.contains("{row}") else {
                guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                    throw ParseError(description: "--source '\(value)': not an http(s) URL (a manifest's, or a template with {id} or {row})")
                }
                self = .manifestURL(value)
                return
            }
            let example = value.replacingOccurrences(of: "{id}", with: "0").replacingOccurrences(of: "{row}", with: "0")
                .replacingOccurrences(of: "{ext}", with: "jpg")
            guard let url = URL(string: example),
                  ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ParseError(description: "--source '\(value)': not an http(s) URL template")
            }
            self = .template(value)
            return
        }
        guard let data = FileManager.default.contents(atPath: value) else {
            throw ParseError(description: "--source '\(value)': no such manifest file (or give a URL template with {id})")
        }
        do {
            self = .manifest(path: value, entries: try Manifest.parse(data, name: value, limit: manifestLimit))
        } catch {
            throw ParseError(description: "--source \(error.description)")
        }
    }

    var description: String {
        switch self {
        case .embedded: "the embedded server"
        case .template(let template): template
        case .manifest(let path, let entries): "\(path) (\(entries.count) URLs)"
        case .manifestURL(let url): "the manifest at \(url)"
        }
    }
}

/// One image a manifest lists.
struct ManifestEntry: Sendable, Equatable, Codable {
    let url: String
    /// The body size, when the manifest gives it (used for the savings of cancelled loads).
    let bytes: Int?

    init(url: String, bytes: Int? = nil) {
        self.url = url
        self.bytes = bytes
    }
}
