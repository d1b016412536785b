/// Charts with nothing to show, said in one sentence instead. A chart of bars all at zero (no
/// hitches) or of lines flat on one value (one user scrolling) takes a screen to say what a
/// sentence does, and a reader scans it for a difference that is not there.
struct LeftOutCharts {
    /// What no cell had: "hitches", "failed loads".
    var absent: [String] = []
    /// What stayed at one value throughout: ("users scrolling", "1").
    var constant: [(name: String, value: String)] = []

    var isEmpty: Bool { absent.isEmpty && constant.isEmpty }

    /// Whether a chart of these values would be bars or lines at zero, or have nothing at all.
    static func allZero(_ values: [Double]) -> Bool { values.allSatisfy { $0 == 0 } }

    /// The one value every sample took, if they all took one (and there is at least one sample).
    static func constant(_ values: [Double]) -> Double? {
        guard let first = values.first, values.allSatisfy({ $0 == first }) else { return nil }
        return first
    }

    /// "No hitches, dropped frames or host-late frames in any cell: their charts are left out."
    /// Empty when every chart was drawn.
    var sentence: String {
        guard !isEmpty else { return "" }
        var clauses: [String] = []
        if !absent.isEmpty { clauses.append("no " + Self.listed(absent) + " in any cell") }
        if !constant.isEmpty {
            clauses.append(Self.listed(constant.map { "\($0.name) stayed at \($0.value)" }, and: true) + " in every second of every run")
        }
        let text = clauses.joined(separator: ", and ")
        let charts = absent.count + constant.count == 1 ? "its chart is" : "their charts are"
        return text.prefix(1).uppercased() + text.dropFirst() + ": \(charts) left out."
    }

    var html: String { isEmpty ? "" : "<p class=\"left-out\">\(escape(sentence))</p>\n" }

    /// "a", "a or b", "a, b or c" ("and" for things that all held).
    static func listed(_ items: [String], and: Bool = false) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + (and ? " and " : " or ") + items.last!
    }
}
