import Foundation

/// A results directory read back from its `summary.csv` (`SummaryCSV.read`): what compare and the
/// gate judge, its runs with typed cells and repeats.
public struct ResultsDirectory: Sendable {
    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    public let path: String
    /// summary.csv's columns in the file's order, former names under today's.
    let header: [String]
    /// One per row, in the file's order.
    public let runs: [ResultRun]
    /// The runs grouped by cell, in first-seen order.
    let cells: [(cell: ResultCell, runs: [ResultRun])]

    public init(path: String) throws(LoadError) {
        let file = URL(fileURLWithPath: path).appendingPathComponent(SummaryCSV.fileName)
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw LoadError(description: "\(path) is not a results directory (no readable \(SummaryCSV.fileName))")
        }
        try self.init(path: path, text: text, file: file.path)
    }

    /// `text` as summary.csv of the directory at `path`.
    init(path: String, text: String, file: String) throws(LoadError) {
        let (header, runs) = try SummaryCSV.read(text, file: file)
        self.init(path: path, header: header, runs: runs)
    }

    init(path: String, header: [String], runs: [ResultRun]) {
        self.path = path
        self.header = header
        self.runs = runs
        var order: [ResultCell] = []
        var groups: [ResultCell: [ResultRun]] = [:]
        for run in runs {
            if groups[run.cell] == nil { order.append(run.cell) }
            groups[run.cell, default: []].append(run)
        }
        cells = order.map { ($0, groups[$0]!) }
    }

    /// Several result sets as one, written to `directory`/summary.csv and read back from it: how
    /// A/B mode joins its one-repeat rounds. Repeats are renumbered 1, 2, … per cell in the order given.
    static func combining(_ parts: [ResultsDirectory], into directory: URL) throws -> ResultsDirectory {
        guard let header = parts.first?.header else { return ResultsDirectory(path: directory.path, header: [], runs: []) }
        var counts: [ResultCell: Int] = [:]
        let runs = parts.flatMap(\.runs).map { run in
            counts[run.cell, default: 0] += 1
            return run.renumbered(counts[run.cell]!)
        }
        let text = SummaryCSV.render(header: header, runs: runs)
        let file = directory.appendingPathComponent(SummaryCSV.fileName)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return try ResultsDirectory(path: directory.path, text: text, file: file.path)
    }
}
