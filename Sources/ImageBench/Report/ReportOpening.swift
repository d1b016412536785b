/// How every human output opens: errors first; then, for a load test, the load summary and after
/// it the app verdict, or, under `--no-decode`, a line saying why there is none (images fetched
/// and not decoded were never shown: placeholder and settle times measured the network alone,
/// which the load summary already says). Any other run opens with the verdict as before.
public struct ReportOpening {
    let verdict: Verdict
    let load: LoadSummary
    let decodes: Bool
    let virtual: Bool
    /// A virtual run's `--host-delay-ms`, said beside the model it went into.
    let hostDelay: String

    /// `verdict`: the results' verdict where the caller has it already (it is not cheap).
    public init(_ results: BenchmarkResults, verdict: Verdict? = nil) {
        self.verdict = verdict ?? Verdict(results)
        load = LoadSummary(results)
        decodes = results.plan.settings.decodes
        virtual = results.plan.settings.isVirtual
        hostDelay = results.plan.settings.hostDelayPhrase()
    }

    /// The first line of a virtual run's every human output: its figures are a model's.
    var virtualTime: String {
        "Virtual time (--time virtual): the network is modelled and every frame lasts exactly one frame\(hostDelay), "
            + "so these figures are the model's, free of the host's noise; CPU and memory were not measured (0). "
            + "Confirm what you choose with a real run."
    }

    static let noAppVerdict = "No app verdict: with --no-decode no image was decoded or shown, so what a user would see was not measured; "
        + "the load summary above is the result."

    /// The verdict's lines in the order the output shows them (the load summary goes between
    /// `errors` and `app`).
    var errors: [String] { load.cells.isEmpty ? [] : verdict.errorLines }
    var app: [String] {
        guard !load.cells.isEmpty else { return verdict.lines }
        return decodes ? verdict.appLines : [Self.noAppVerdict]
    }

    public var text: String {
        (virtual ? virtualTime + "\n\n" : "")
            + (errors.isEmpty ? "" : errors.joined(separator: "\n") + "\n\n") + load.text + app.joined(separator: "\n") + "\n\n"
    }

    var markdown: String {
        let errorPart = errors.isEmpty ? "" : errors.map { "**\($0)**" }.joined(separator: "\n\n") + "\n\n"
        let app = self.app
        let appPart = (load.cells.isEmpty ? "" : "## Verdict\n\n") + "**\(app[0])**\n\n" + app.dropFirst().map { "- \($0)" }.joined(separator: "\n")
        return (virtual ? "> **\(virtualTime)**\n\n" : "") + errorPart + load.markdown + appPart
    }

    var html: String {
        let errorPart = errors.isEmpty ? "" : errors.map { "<p class=\"verdict\"><strong>\(escape($0))</strong></p>" }.joined(separator: "\n") + "\n"
        let app = self.app
        let timePart = virtual ? "<p class=\"verdict\"><strong>\(escape(virtualTime))</strong></p>\n" : ""
        return timePart + errorPart + load.html + "<h2>Verdict</h2>\n<p class=\"verdict\"><strong>\(escape(app[0]))</strong></p>\n<ul>\n"
            + app.dropFirst().map { "<li>\(escape($0))</li>" }.joined(separator: "\n") + "\n</ul>\n"
    }
}
