import Foundation

/// A chart's frame: the plot area (`class="plot"`), axes with ticks at round values, and a legend
/// below the axis title, outside the plot, so it never covers a line. Series draw inside.
struct ChartFrame {
    let width: Double, height: Double
    let left: Double, right: Double, top = 28.0
    let legend: [(name: String, colour: String)]
    let x: (Double) -> Double, y: (Double) -> Double
    let plotWidth: Double, plotHeight: Double

    /// `plotHeight` is the plot's own height: the legend's rows are added below it. `left` holds
    /// the y labels; `right` the last x tick's label ("100 ms" centred on the plot's edge), or
    /// notes beside bars.
    init(width: Double, plotHeight: Double, x: ClosedRange<Double>, y: ClosedRange<Double>, logX: Bool = false,
         flipY: Bool = false, legend: [(name: String, colour: String)] = [], left: Double = 56, right: Double = 30) {
        self.width = width
        self.legend = legend
        (self.left, self.right) = (left, right)
        let plotWidth = width - left - right
        self.plotWidth = plotWidth
        self.plotHeight = plotHeight
        let rows = Self.legendRows(legend.map(\.name), width: plotWidth)
        height = top + plotHeight + 40 + Double(rows.count) * 16
        let top = self.top
        let span = { (value: Double, range: ClosedRange<Double>, log: Bool) -> Double in
            let (v, lo, hi) = log ? (Foundation.log10(max(value, range.lowerBound)), Foundation.log10(range.lowerBound), Foundation.log10(range.upperBound))
                                  : (value, range.lowerBound, range.upperBound)
            return hi > lo ? (v - lo) / (hi - lo) : 0.5
        }
        self.x = { left + span($0, x, logX) * plotWidth }
        self.y = flipY ? { top + span($0, y, false) * plotHeight } : { top + plotHeight - span($0, y, false) * plotHeight }
    }

    /// The legend's entries in rows that fit the plot's width (about 7 px a character).
    static func legendRows(_ names: [String], width: Double) -> [[Int]] {
        var rows: [[Int]] = [], used = 0.0
        for (index, name) in names.enumerated() {
            let entry = 24 + Double(name.count) * 7
            if rows.isEmpty || used + entry > width {
                rows.append([])
                used = 0
            }
            rows[rows.count - 1].append(index)
            used += entry
        }
        return rows
    }

    func axes(xTicks: [(Double, String)], yTicks: [(Double, String)], xTitle: String, title: String) -> String {
        let n = svgNumber
        var svg = "<rect class=\"plot\" x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotWidth))\" height=\"\(n(plotHeight))\" fill=\"none\" stroke=\"#999\"/>\n"
        for (value, label) in xTicks {
            svg += "<line x1=\"\(n(x(value)))\" y1=\"\(n(top))\" x2=\"\(n(x(value)))\" y2=\"\(n(top + plotHeight))\" stroke=\"#eee\"/>"
            svg += "<text class=\"tick-x\" x=\"\(n(x(value)))\" y=\"\(n(top + plotHeight + 14))\" font-size=\"11\" text-anchor=\"middle\">\(label)</text>\n"
        }
        for (value, label) in yTicks {
            svg += "<line x1=\"\(n(left))\" y1=\"\(n(y(value)))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(y(value)))\" stroke=\"#eee\"/>"
            svg += "<text class=\"tick-y\" x=\"\(n(left - 6))\" y=\"\(n(y(value) + 4))\" font-size=\"11\" text-anchor=\"end\">\(label)</text>\n"
        }
        svg += "<text x=\"\(n(left + plotWidth / 2))\" y=\"\(n(top + plotHeight + 32))\" font-size=\"12\" text-anchor=\"middle\">\(escape(xTitle))</text>\n"
        svg += "<text x=\"\(n(left))\" y=\"16\" font-size=\"13\" font-weight=\"bold\">\(escape(title))</text>\n"
        return svg + legendSVG
    }

    private var legendSVG: String {
        guard !legend.isEmpty else { return "" }
        let n = svgNumber
        var svg = "<g class=\"legend\">"
        for (row, indices) in Self.legendRows(legend.map(\.name), width: plotWidth).enumerated() {
            var x = left
            let y = top + plotHeight + 46 + Double(row) * 16
            for index in indices {
                let (name, colour) = legend[index]
                svg += "<rect x=\"\(n(x))\" y=\"\(n(y - 9))\" width=\"10\" height=\"10\" fill=\"\(colour)\"/>"
                    + "<text x=\"\(n(x + 14))\" y=\"\(n(y))\" font-size=\"11\">\(escape(name))</text>"
                x += 24 + Double(name.count) * 7
            }
        }
        return svg + "</g>\n"
    }

    func svg(_ content: String, label: String) -> String { Self.svg(content, label: label, width: width, height: height) }

    /// The chart's own size, and a viewBox so that a page narrower than it scales it down (the
    /// page's `svg.chart { max-width: 100% }`) rather than scroll sideways.
    static func svg(_ content: String, label: String, width: Double, height: Double) -> String {
        let (w, h) = (svgNumber(width), svgNumber(height))
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"\(label)\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\">\n\(content)</svg>\n"
    }

    /// A line through `points`, optionally with a dot at each.
    static func polyline(_ points: [(Double, Double)], colour: String, series: String, dots: Bool = false, width: Double = 2) -> String {
        let n = svgNumber
        let list = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
        var svg = "<polyline class=\"series\" data-series=\"\(escape(series))\" points=\"\(list)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(n(width))\"/>\n"
        if dots { svg += points.map { "<circle cx=\"\(n($0.0))\" cy=\"\(n($0.1))\" r=\"3\" fill=\"\(colour)\"/>" }.joined() + "\n" }
        return svg
    }

    /// A line through the points that are there, broken where one is nil (a second with no
    /// sample): each run of points is its own `M…L…` subpath, so no line claims a second nobody
    /// measured. A point alone between gaps has no line to be on: it is a dot.
    static func brokenLine(_ points: [(Double, Double)?], colour: String, series: String, width: Double = 2) -> String {
        let n = svgNumber
        let runs = points.split(omittingEmptySubsequences: true) { $0 == nil }.map { $0.compactMap { $0 } }
        let d = runs.filter { $0.count > 1 }.map { "M" + $0.map { "\(n($0.0)) \(n($0.1))" }.joined(separator: "L") }.joined()
        let dots = runs.filter { $0.count == 1 }.map { "<circle cx=\"\(n($0[0].0))\" cy=\"\(n($0[0].1))\" r=\"\(n(width + 1))\" fill=\"\(colour)\"/>" }
        return "<path class=\"series\" data-series=\"\(escape(series))\" d=\"\(d)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(n(width))\" "
            + "stroke-linejoin=\"round\"/>\n" + (dots.isEmpty ? "" : dots.joined() + "\n")
    }

    /// A 95% interval as a horizontal whisker with caps, at height `y`, in black over a bar.
    static func whisker(horizontalAt y: Double, from low: Double, to high: Double, series: String) -> String {
        let n = svgNumber
        return "<path class=\"whisker\" data-series=\"\(escape(series))\" d=\"M\(n(low)) \(n(y))H\(n(high))M\(n(low)) \(n(y - 5))v10M\(n(high)) \(n(y - 5))v10\" "
            + "stroke=\"#222\" stroke-width=\"1.5\" fill=\"none\"/>\n"
    }

    /// A 95% interval as a vertical whisker with caps at `x`, from `low` to `high` (pixels).
    static func whisker(x: Double, low: Double, high: Double, colour: String, series: String) -> String {
        let n = svgNumber
        return "<path class=\"whisker\" data-series=\"\(escape(series))\" d=\"M\(n(x)) \(n(low))V\(n(high))M\(n(x - 4)) \(n(low))h8M\(n(x - 4)) \(n(high))h8\" "
            + "stroke=\"\(colour)\" stroke-width=\"1.5\" fill=\"none\"/>\n"
    }
}

/// Tick positions at round values: steps of 1, 2, 2.5 or 5 times a power of ten, about `count`
/// of them, from zero (or `range`'s start) to the first tick at or above its end. `integers`
/// keeps steps whole, for counts (no tick at 2.5 rows).
enum RoundTicks {
    static func step(for span: Double, count: Int = 5, integers: Bool = false) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        let raw = span / Double(max(1, count))
        if integers && raw <= 1 { return 1 }
        let power = pow(10, floor(log10(raw)))
        let multiples: [Double] = integers && power == 1 ? [1, 2, 5, 10] : [1, 2, 2.5, 5, 10]
        return multiples.map { $0 * power }.first { $0 >= raw } ?? 10 * power
    }

    /// The ticks and the axis's end (the last tick), so the top gridline is a round value.
    static func ticks(upTo end: Double, from start: Double = 0, count: Int = 5, integers: Bool = false) -> (values: [Double], end: Double) {
        let step = step(for: end - start, count: count, integers: integers)
        let first = (start / step).rounded(.down) * step
        var values: [Double] = [], value = first
        while values.isEmpty || values.last! < end - step * 1e-9 {
            values.append(value)
            value = first + Double(values.count) * step
        }
        return (values, max(values.last!, first + step))
    }

    /// A tick label with as many decimals as the step needs (2.5 → one, 0.25 → two).
    static func label(_ value: Double, step: Double, unit: String = "") -> String {
        let decimals = (0...4).first { abs(step * pow(10, Double($0)) - (step * pow(10, Double($0))).rounded()) < 1e-6 } ?? 4
        return String(format: "%.\(decimals)f", value) + unit
    }
}
