import Foundation

/// The scroll timeline of one run: an overview of the rows waiting on screen over the whole run,
/// and the second around its worst moment row by row, so it can be read at 5,000 rows.
extension HTMLReport {
    /// Seconds of the detailed window: a fling passes some 200 rows a second, which still leave
    /// each row two pixels (at 4 s, 800 rows merged into one band).
    static let timelineWindowSeconds = 1.0

    /// The frames a request's row showed a placeholder: from the frame it appeared, for its
    /// placeholder time (memory hits: none).
    static func waitingFrames(_ request: RequestRecord, frameNanoseconds: Double) -> Range<Int> {
        let frames = Int((Double(request.placeholder ?? 0) / frameNanoseconds).rounded())
        return request.visibleFrame..<(request.visibleFrame + frames)
    }

    /// Rows showing a placeholder in each frame, and the window of `windowFrames` with the most.
    static func worstWindow(_ requests: [RequestRecord], fps: Int, windowFrames: Int) -> (waiting: [Int], window: Range<Int>) {
        let frameNanoseconds = 1e9 / Double(fps)
        let last = requests.map { waitingFrames($0, frameNanoseconds: frameNanoseconds).upperBound }.max() ?? 0
        var change = [Int](repeating: 0, count: last + 2)
        for request in requests {
            let frames = waitingFrames(request, frameNanoseconds: frameNanoseconds)
            guard !frames.isEmpty else { continue }
            change[frames.lowerBound] += 1
            change[frames.upperBound] -= 1
        }
        var waiting = [Int](repeating: 0, count: last + 1), running = 0
        for frame in waiting.indices {
            running += change[frame]
            waiting[frame] = running
        }
        let length = min(windowFrames, waiting.count)
        var sum = waiting.prefix(length).reduce(0, +), best = (sum, 0)
        for start in stride(from: 1, through: waiting.count - length, by: 1) {
            sum += waiting[start + length - 1] - waiting[start - 1]
            if sum > best.0 { best = (sum, start) }
        }
        return (waiting, best.1..<(best.1 + length))
    }

    func timelineCharts(_ result: RunResult, fps: Int) -> String {
        // One user's screen (the first, with --clients).
        let requests = result.requests.filter { $0.client == 0 }
        guard !requests.isEmpty else { return "<p>No requests.</p>\n" }
        let (waiting, window) = Self.worstWindow(requests, fps: fps, windowFrames: Int(Self.timelineWindowSeconds * Double(fps)))
        return overview(waiting, window: window, fps: fps) + detail(requests, window: window, fps: fps)
    }

    /// Rows waiting on screen over the whole run (the most in each quarter second), the detailed
    /// window shaded.
    private func overview(_ waiting: [Int], window: Range<Int>, fps: Int) -> String {
        let bucket = max(1, fps / 4)
        let peaks = stride(from: 0, to: waiting.count, by: bucket).map { waiting[$0..<min(waiting.count, $0 + bucket)].max() ?? 0 }
        let seconds = Double(waiting.count) / Double(fps)
        let (xTicks, xEnd) = RoundTicks.ticks(upTo: max(seconds, 1), count: 8)
        let (yTicks, yEnd) = RoundTicks.ticks(upTo: Double(max(1, peaks.max() ?? 1)), count: 4, integers: true)
        let colour = SeriesColours.kind("placeholder")
        let frame = ChartFrame(width: 1000, plotHeight: 120, x: 0...xEnd, y: 0...yEnd, legend: [("placeholder (rows waiting)", colour)])
        let xStep = xTicks.count > 1 ? xTicks[1] - xTicks[0] : 1, yStep = yTicks.count > 1 ? yTicks[1] - yTicks[0] : 1
        var svg = frame.axes(xTicks: xTicks.map { ($0, RoundTicks.label($0, step: xStep, unit: " s")) },
                             yTicks: yTicks.map { ($0, RoundTicks.label($0, step: yStep)) },
                             xTitle: "time", title: "Rows showing a placeholder, whole run (shaded: the window below)")
        let n = svgNumber
        let (from, to) = (frame.x(Double(window.lowerBound) / Double(fps)), frame.x(Double(window.upperBound) / Double(fps)))
        svg += "<rect class=\"window\" x=\"\(n(from))\" y=\"\(n(frame.top))\" width=\"\(n(to - from))\" height=\"\(n(frame.plotHeight))\" fill=\"#000\" fill-opacity=\"0.08\"/>\n"
        let points = peaks.enumerated().map { (frame.x(Double($0.offset * bucket) / Double(fps)), frame.y(Double($0.element))) }
        svg += ChartFrame.polyline(points, colour: colour, series: "placeholder", width: 1.5)
        return frame.svg(svg, label: "timeline-overview")
    }

    /// Each row on screen during the window, from the frame it appeared to the frame its image did.
    private func detail(_ requests: [RequestRecord], window: Range<Int>, fps: Int) -> String {
        let frameNanoseconds = 1e9 / Double(fps)
        let inWindow = requests.filter {
            let frames = Self.waitingFrames($0, frameNanoseconds: frameNanoseconds)
            return window.contains($0.visibleFrame) || frames.overlaps(window)
        }
        guard let firstRow = inWindow.map(\.row).min(), let lastRow = inWindow.map(\.row).max() else { return "" }
        let start = Double(window.lowerBound) / Double(fps), end = Double(window.upperBound) / Double(fps)
        let rowStep = RoundTicks.step(for: Double(lastRow + 1 - firstRow), count: 5, integers: true)
        let rowStart = (Double(firstRow) / rowStep).rounded(.down) * rowStep
        let (rowTicks, rowEnd) = RoundTicks.ticks(upTo: Double(lastRow + 1), from: rowStart, count: 5, integers: true)
        let (timeTicks, _) = RoundTicks.ticks(upTo: end, from: start, count: 8)
        let errors = inWindow.contains { $0.outcome == .error }
        let legend = ["placeholder", "displayed"] + (errors ? ["error"] : []) + ["viewport"]
        let entries = legend.map { (name: $0, colour: SeriesColours.kind($0)) }
        // Row 0 at the top, as on the screen.
        let frame = ChartFrame(width: 1000, plotHeight: 420, x: start...end, y: rowStart...rowEnd, flipY: true, legend: entries)
        let timeStep = timeTicks.count > 1 ? timeTicks[1] - timeTicks[0] : 1
        var svg = frame.axes(xTicks: timeTicks.filter { $0 >= start && $0 <= end }.map { ($0, RoundTicks.label($0, step: timeStep, unit: " s")) },
                             yTicks: rowTicks.map { ($0, "row \(Int($0))") }, xTitle: "time",
                             title: String(format: "What the user saw, %.1f–%.1f s: the stretch with the most placeholders", start, end))
        // Thin marks are enough; one path per kind keeps the file small.
        var waiting = "", shown = "", failed = ""
        let n = svgNumber
        let clamp = { (seconds: Double) in frame.x(min(end, max(start, seconds))) }
        for request in inWindow {
            let y = n(frame.y(Double(request.row)))
            let from = clamp(Double(request.visibleFrame) / Double(fps))
            let until = clamp(Double(Self.waitingFrames(request, frameNanoseconds: frameNanoseconds).upperBound) / Double(fps))
            if until > from + 0.3 { waiting += "M\(n(from)) \(y)H\(n(until))" }
            switch request.outcome {
            case .displayed: if let shownAt = request.displayFrame, window.contains(shownAt) { shown += "M\(n(until)) \(y)h1.5" }
            case .neverDisplayed: if until <= from + 0.3 { waiting += "M\(n(from)) \(y)h2" }
            case .error: failed += "M\(n(until)) \(y)h2"
            }
        }
        let path = { (d: String, name: String, width: Double) in
            "<path class=\"series\" data-series=\"\(name)\" d=\"\(d)\" stroke=\"\(SeriesColours.kind(name))\" stroke-width=\"\(n(width))\" fill=\"none\"/>\n"
        }
        svg += path(waiting, "placeholder", 1.5) + path(shown, "displayed", 2.5)
        if !failed.isEmpty { svg += path(failed, "error", 2.5) }
        // The edge rows enter by: the smallest row that appeared in each frame (the bottom of
        // the screen while scrolling down).
        var top: [Int: Int] = [:]
        for request in inWindow where window.contains(request.visibleFrame) {
            top[request.visibleFrame] = min(top[request.visibleFrame] ?? .max, request.row)
        }
        let edge = top.keys.sorted().map { (frame.x(Double($0) / Double(fps)), frame.y(Double(top[$0]!))) }
        svg += ChartFrame.polyline(edge, colour: SeriesColours.kind("viewport"), series: "viewport", width: 1)
        return frame.svg(svg, label: "timeline")
    }
}
