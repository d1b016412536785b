import Foundation

/// A results directory read back from its `summary.csv`.
public struct ResultsDirectory: Sendable {
    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    public let path: String
    let header: [String]
    /// One dictionary per run, keyed by column name.
    public let runs: [[String: String]]

    public init(path: String) throws(LoadError) {
        let file = URL(fileURLWithPath: path).appendingPathComponent(SummaryCSV.fileName)
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw LoadError(description: "\(path) is not a results directory (no readable summary.csv)")
        }
        let rows = CSVTable.parse(text)
        // Columns renamed since (latency_p95_ms is display_p95_ms) are read under today's names.
        guard let header = rows.first.map({ $0.map(Metric.currentName) }), header.contains("strategy"), header.contains("concurrency") else {
            throw LoadError(description: "\(file.path) has no strategy and concurrency columns")
        }
        self.path = path
        self.header = header
        runs = rows.dropFirst().filter { $0.count == header.count }.map { Dictionary(zip(header, $0), uniquingKeysWith: { first, _ in first }) }
    }

    init(path: String, header: [String], runs: [[String: String]]) {
        self.path = path
        self.header = header
        self.runs = runs
    }

    /// Several result sets as one, written to `directory`/summary.csv: how A/B mode joins its
    /// one-repeat rounds. Repeats are renumbered 1, 2, … per cell in the order given.
    static func combining(_ parts: [ResultsDirectory], into directory: URL) throws -> ResultsDirectory {
        guard let header = parts.first?.header else { return ResultsDirectory(path: directory.path, header: [], runs: []) }
        var counts: [String: Int] = [:]
        var runs: [[String: String]] = []
        for part in parts {
            for var run in part.runs {
                let cell = part.cell(of: run)
                counts[cell, default: 0] += 1
                run["repeat"] = String(counts[cell]!)
                runs.append(run)
            }
        }
        var table = CSVTable(header: header)
        for run in runs { table.append(header.map { run[$0] ?? "" }) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try table.rendered.write(to: directory.appendingPathComponent(SummaryCSV.fileName), atomically: true, encoding: .utf8)
        return ResultsDirectory(path: directory.path, header: header, runs: runs)
    }

    /// The strategy × concurrency (× format × varied policies) cell a run belongs to, as tables
    /// name it: "threads ×5", "threads ×5 avif", "threads ×5 cancel=none".
    func cell(of run: [String: String]) -> String {
        CellName.of(strategy: run["strategy"] ?? "?", concurrency: run["concurrency"] ?? "?", format: run["format"] ?? "")
            + PolicyVariant(Self.variedPolicies(runs).reduce(into: [:]) { $0[$1] = run[$1.rawValue] }).suffix
    }

    /// The policies whose column holds more than one value: the run varied them.
    static func variedPolicies(_ runs: [[String: String]]) -> [PolicyDimension] {
        PolicyDimension.allCases.filter { dimension in Set(runs.compactMap { $0[dimension.rawValue] }).count > 1 }
    }

    /// Runs grouped by strategy and concurrency, in first-seen order.
    var cells: [(key: String, runs: [[String: String]])] {
        var order: [String] = []
        var groups: [String: [[String: String]]] = [:]
        for run in runs {
            let key = cell(of: run)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(run)
        }
        return order.map { ($0, groups[$0]!) }
    }
}
