import Foundation

/// The verdict's line on what a `--budget` bought: the time, the rounds, why it ended, and the
/// level every interval was made at.
enum BudgetText {
    static func line(_ budget: Budget, results: [RunResult]) -> String? {
        guard budget.rounds > 0 else { return nil }
        let rounds = Dictionary(grouping: results, by: \.cell.name).mapValues(\.count)
        let again = rounds.filter { $0.value > 1 }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        let raced = again.isEmpty ? "every cell once" : "every cell once, then new traces for the cells still open: "
            + again.map { "\($0.key) \($0.value) rounds" }.joined(separator: ", ")
        let why = switch budget.ended {
        case "decided": "everything the verdict compares was decided"
        case "unranked": "no cell could be ranked, so there was nothing to race"
        case "budget": "the next round would have passed the budget"
        case "stopped": "it was stopped"
        default: "the looks fixed after the first round were used"
        }
        return "--budget " + duration(budget.seconds) + ": spent " + duration(budget.spentSeconds) + " on \(budget.rounds) round\(budget.rounds == 1 ? "" : "s") ("
            + raced + "); ended because " + why + ". " + level(budget) + more(budget)
    }

    static func level(_ budget: Budget) -> String {
        budget.looks == 1 ? "Every interval and test here is at \(Confidence.label) (one look: no round after the first fitted in the budget)."
            : "Every interval and test here is at \(Confidence.label) (5% split over the \(budget.looks) looks the budget could hold, so stopping on what they saw keeps the 5%)."
    }

    /// Where the first round used the budget up: what room for three more rounds of two cells would take.
    static func more(_ budget: Budget) -> String {
        guard budget.ended == "budget", budget.rounds == 1, budget.pairSeconds > 0 else { return "" }
        let minutes = Int(((budget.spentSeconds + 3 * budget.pairSeconds) / 60).rounded(.up))
        return " The first round took \(duration(budget.spentSeconds)); --budget \(minutes)m leaves room for three more rounds of two cells."
    }

    /// "3 min", "2 min 51 s", "45 s".
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        guard whole >= 60 else { return "\(whole) s" }
        return whole % 60 == 0 ? "\(whole / 60) min" : "\(whole / 60) min \(whole % 60) s"
    }
}
