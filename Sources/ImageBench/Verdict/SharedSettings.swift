import Foundation

/// What the cells of a run that compares only strategies share, so its answer says what it holds
/// fixed: " (each at a limit of 5, cancel=offscreen, prefetch=0, wifi)".
enum SharedSettings {
    static func clause(_ plan: BenchmarkPlan?, _ cell: Verdict.Cell) -> String {
        guard let plan else { return "" }
        let settings = plan.settings
        let policies = [PolicyDimension.cancel, .prefetch, .memoryCacheMB].filter { cell.policies.values[$0] == nil }
            .map { $0.label($0.value(of: settings)) }
        let network = settings.source == .embedded ? [settings.network.name] : []
        return " (each at a limit of \(cell.concurrency), " + (policies + network).joined(separator: ", ") + ")"
    }
}
