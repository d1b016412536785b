import Foundation

/// What a results directory's summary.json says about how it was produced: enough to run the same
/// configuration again (`imgbench gate` without `--current`, and `--update-baseline`).
public struct RecordedConfiguration: Sendable, Equatable {
    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `imgbench run` arguments, output options removed.
    public let arguments: [String]
    public let repeats: Int
    public let strategies: [String]
    public let concurrencies: [Int]

    public init(directory: String) throws(LoadError) {
        let file = URL(fileURLWithPath: directory).appendingPathComponent("summary.json")
        guard let data = try? Data(contentsOf: file),
              let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let configuration = document["configuration"] as? [String: Any] else {
            throw LoadError(description: "\(file.path) is missing or not a summary.json")
        }
        guard let arguments = configuration["arguments"] as? [String] else {
            throw LoadError(description: "\(file.path) records no run arguments (an older imgbench wrote it); "
                + "run the configuration again with imgbench run, or pass --current")
        }
        self.arguments = arguments
        repeats = configuration["repeat"] as? Int ?? 1
        strategies = configuration["strategies"] as? [String] ?? []
        concurrencies = configuration["concurrency"] as? [Int] ?? []
    }
}
