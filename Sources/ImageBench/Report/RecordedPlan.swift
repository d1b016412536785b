import Foundation

/// The plan a results directory's summary.json records: what `merge`, `report`, `compare` and
/// `gate` read instead of parsing command lines again.
public enum RecordedPlan {
    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads summary.json's plan: its `plan` object or, for directories an imgbench before 0.2
    /// wrote (only `configuration.arguments`), `legacy` applied to those arguments. The command
    /// line passes its own parser as `legacy`, since only it knows the flags.
    public static func read(directory: String, legacy: (([String]) throws -> BenchmarkPlan)? = nil) throws(LoadError) -> BenchmarkPlan {
        let file = URL(fileURLWithPath: directory).appendingPathComponent(SummaryJSON.fileName)
        guard let data = try? Data(contentsOf: file),
              let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw LoadError(description: "\(file.path) is missing or not a summary.json")
        }
        if let plan = document["plan"] {
            do {
                return try BenchmarkPlan(jsonObject: plan)
            } catch {
                throw LoadError(description: "\(file.path): \(error.description)")
            }
        }
        guard let arguments = (document["configuration"] as? [String: Any])?["arguments"] as? [String], let legacy else {
            throw LoadError(description: "\(file.path) records no plan (an older imgbench wrote it); "
                + "run the configuration again with imgbench run, or pass --current")
        }
        do {
            // imgbench 0.1 played no warm-up before its runs; today's default would add one.
            var plan = try legacy(arguments)
            plan.warmupSeconds = 0
            return plan
        } catch {
            throw LoadError(description: "\(file.path): cannot read its recorded arguments \(arguments.map(ShellWords.quoted).joined(separator: " ")): \(error)")
        }
    }
}
