import Foundation

// How a plan is written into summary.json and read back. Types that are parsed from a spec on the
// command line are stored as that spec and parsed again when read, so a hand-edited summary.json
// is checked exactly as a command line is.

/// A setting typed on the command line as a spec (`--faults error=2%`, `--inject decode=+3ms`):
/// stored as that spec and parsed again when read.
protocol SpecCodable: Codable, CustomStringConvertible, Equatable {
    static var none: Self { get }
    init(spec: String) throws
}

extension SpecCodable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = text == Self.none.description ? .none : try Self(spec: text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension FaultInjection: SpecCodable {
    init(spec: String) throws { try self.init(parsing: spec) }
}

extension ServerFaults: SpecCodable {
    init(spec: String) throws { try self.init(parsing: spec) }
}

extension ImageSource: Codable {
    private enum CodingKeys: String, CodingKey { case kind, template, path, entries }

    /// A manifest is stored with its entries: the plan stays readable where the file is gone.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "embedded": self = .embedded
        case "template":
            let template = try container.decode(String.self, forKey: .template)
            self = try ImageSource(parsing: template)
        case "manifest-url": self = .manifestURL(try container.decode(String.self, forKey: .path))
        case "manifest":
            self = .manifest(path: try container.decode(String.self, forKey: .path),
                             entries: try container.decode([ManifestEntry].self, forKey: .entries))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "unknown image source '\(other)'")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .embedded:
            try container.encode("embedded", forKey: .kind)
        case .template(let template):
            try container.encode("template", forKey: .kind)
            try container.encode(template, forKey: .template)
        case .manifestURL(let url):
            try container.encode("manifest-url", forKey: .kind)
            try container.encode(url, forKey: .path)
        case .manifest(let path, let entries):
            try container.encode("manifest", forKey: .kind)
            try container.encode(path, forKey: .path)
            try container.encode(entries, forKey: .entries)
        }
    }
}

extension BenchmarkPlan {
    /// The plan as a JSON object (for summary.json).
    func jsonObject() throws -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try JSONSerialization.jsonObject(with: encoder.encode(self))
    }

    /// A plan from a JSON object, checked as a command line is.
    init(jsonObject: Any) throws(PlanError) {
        do {
            self = try JSONDecoder().decode(BenchmarkPlan.self, from: JSONSerialization.data(withJSONObject: jsonObject))
        } catch {
            throw PlanError("not a plan imgbench can read: \(PlanError.reason(error))")
        }
        try validate()
    }
}

extension PlanError {
    /// A decoding error in one line, naming the field.
    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}

/// Field-by-field differences between two plans, through their JSON form.
enum PlanDifferences {
    static func between(_ a: BenchmarkPlan, _ b: BenchmarkPlan) -> [String] {
        let left = flatten((try? a.jsonObject()) ?? [:]), right = flatten((try? b.jsonObject()) ?? [:])
        return Set(left.keys).union(right.keys).sorted().compactMap { key in
            let x = left[key] ?? "(none)", y = right[key] ?? "(none)"
            return x == y ? nil : "\(key): \(x) → \(y)"
        }
    }

    /// Leaves as "a.b.c" → their JSON text; arrays of plain values stay whole ("[1,5]"), but for
    /// long ones (a calibration's decode times), said by their count and a digest of their text.
    static func flatten(_ value: Any, prefix: String = "") -> [String: String] {
        if let object = value as? [String: Any] {
            return object.reduce(into: [:]) { result, pair in
                result.merge(flatten(pair.value, prefix: prefix.isEmpty ? pair.key : prefix + "." + pair.key)) { a, _ in a }
            }
        }
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        if let array = value as? [Any], array.count > 16, let data {
            // FNV-1a: the same text, the same digest, in every process.
            let digest = data.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
            return [prefix: "[\(array.count) values, #\(String(digest, radix: 16))]"]
        }
        return [prefix: data.map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"]
    }
}
