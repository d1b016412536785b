import Foundation

/// One output format of a results directory. Adding a format is adding a writer.
public protocol ReportWriter: Sendable {
    /// The file it writes in the results directory: the one place its name is spelled, which
    /// the readers of a results directory use too.
    static var fileName: String { get }
    func render(_ results: BenchmarkResults) throws -> String
}

extension ReportWriter {
    public var fileName: String { Self.fileName }

    public func write(_ results: BenchmarkResults, to directory: URL) throws {
        try render(results).write(to: directory.appendingPathComponent(fileName), atomically: true, encoding: .utf8)
    }
}

/// Every file a results directory holds, in the order they are written.
public enum Reports {
    public static let all: [any ReportWriter] = [SummaryCSV(), SummaryAggregateCSV(), ClientsCSV(), RequestsCSV(), TimeseriesCSV(),
                                                 SummaryJSON(), HistogramsJSON(), CacheCurveCSV(), MarkdownReport(), HTMLReport()]

    /// The reports people read, which `imgbench report` writes again from the data files.
    public static let humanFacing: [any ReportWriter] = [MarkdownReport(), HTMLReport()]

    public static func write(_ results: BenchmarkResults, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try results.atItsConfidence { for writer in all { try writer.write(results, to: directory) } }
    }
}
