/// `--progressive`: previews of loads under way reach the main loop like their images do.
extension ScrollRun {
    /// Previews posted since the last frame, after the frame's completions (a load whose image
    /// came in the same frame shows the image): each is shown in the rows still waiting for its
    /// load, ending their placeholder time. Every preview decoded counts in its cost, shown or not.
    func deliverPreviews(frame: Int) {
        inbox.takePreviews(into: &previewed)
        for preview in previewed {
            tally.previews.decodes += 1
            tally.previews.nanoseconds += preview.cost
            guard let load = registry[preview.loadID], !load.cancelled else { continue }
            for id in load.waiting where book.previewed(id, frame: frame) { tally.previews.shown += 1 }
        }
    }
}

/// What previews cost and showed.
struct PreviewTally {
    /// Previews decoded, and their decode and filter time (ns).
    var decodes = 0, nanoseconds: UInt64 = 0
    /// Requests that showed a preview before their image.
    var shown = 0

    func fill(_ summary: inout RunSummary) {
        summary.previewsShown = shown
        summary.previewDecodes = decodes
        summary.previewDecodeMs = Double(nanoseconds) / 1e6
    }
}
