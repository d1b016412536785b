/// `--formats` as a dimension of the matrix: which sources can vary the format, what each cell's
/// workload is, and how its summary names the format.
extension RunSettings {
    /// What summary.csv's `format` column says for a cell in `format`: the format, where the
    /// source is the generated corpus or a `{ext}` template; empty for a source whose format
    /// imgbench does not choose (a manifest, a template without `{ext}`).
    func formatLabel(_ format: CorpusFormat) -> String {
        switch source {
        case .embedded: format.description
        case .template(let template) where template.contains("{ext}"): format.description
        default: ""
        }
    }

    /// A `{ext}` template's URL template for `format`.
    static func template(_ template: String, format: CorpusFormat) -> String {
        guard case .only(let file) = format else { return template }
        return template.replacingOccurrences(of: "{ext}", with: file.fileExtension)
    }
}

extension BenchmarkPlan {
    /// Formats are the generated corpus's to choose; a `--source` server has the files it has, so
    /// only a template naming the extension (`{ext}`) can be asked for several.
    func checkFormats() throws(PlanError) {
        switch settings.source {
        case .embedded:
            return
        case .template(let template) where template.contains("{ext}"):
            if formats.contains(.mixed) {
                throw PlanError("--source with {ext} needs --formats naming single formats (jpeg, png, webp, avif, gif): "
                                + "jpeg+png is the generated corpus's mix, not an extension")
            }
        default:
            if formats != [.mixed] {
                throw PlanError("--formats with --source needs a URL template with {ext}, e.g. http://host/img/{id}.{ext} "
                                + "(imgbench corpus --formats writes those files)")
            }
        }
    }
}

/// The workloads of a benchmark, one per format, and what serves them.
struct PreparedWorkloads {
    var byFormat: [CorpusFormat: Workload] = [:]
    /// The generated images of the first format (the reports' corpus size).
    var corpusImages = 0
    var corpusBytes = 0

    func workload(_ format: CorpusFormat) -> Workload { byFormat[format]! }
}
