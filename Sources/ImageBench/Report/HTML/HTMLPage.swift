import Foundation

/// A self-contained page: the shared type and headings, the page's own rules, its body.
func page(title: String, style: String, body: String) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8"/>
    <title>\(escape(title))</title>
    <style>
    body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px auto; padding: 0 16px; max-width: 1100px; box-sizing: border-box; color: #222; }
    h1 { font-size: 24px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
    \(style)
    </style>
    </head>
    <body>
    \(body)</body>
    </html>

    """
}

/// A coordinate or length in SVG, to a tenth of a pixel.
func svgNumber(_ value: Double) -> String { String(format: "%.1f", value) }

/// Text for HTML: the five characters that could end an element or an attribute, escaped.
func escape(_ text: String) -> String {
    var escaped = ""
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
    }
    return escaped
}

/// The colour of every series in report.html. A strategy has one hue everywhere (its line in the
/// sweep, its cells' curves); the cells of one strategy at several limits are shades of it, dark
/// for the smallest limit. What the other charts show (where requests were served from, the
/// timeline's marks) has hues no strategy uses, so no colour means two things in one chart.
struct SeriesColours {
    /// A switch, not a table: a new strategy does not compile until it has a colour.
    static func hue(_ kind: StrategyKind) -> RGB {
        switch kind {
        case .operationQueue: RGB(0x1F77B4)
        case .gcd: RGB(0xFF7F0E)
        case .threads: RGB(0x2CA02C)
        case .async: RGB(0x9467BD)
        case .events: RGB(0x00A087)
        case .mainThread: RGB(0x7F7F7F)
        }
    }
    static let kinds: [String: RGB] = [
        "memory": RGB(0x17BECF), "disk": RGB(0xBCBD22), "network": RGB(0x8C564B), "merged": RGB(0xE377C2),
        "error": RGB(0xD62728), "placeholder": RGB(0xE7BA52), "displayed": RGB(0x393B79), "viewport": RGB(0x000000),
    ]

    /// Every limit a strategy ran at, smallest first: where a cell's shade comes from.
    let limits: [Int]

    init(limits: [Int]) { self.limits = Array(Set(limits)).sorted() }

    func strategy(_ kind: StrategyKind) -> String { Self.hue(kind).hex }

    /// With several formats, a cell's hue is its format's (the strategies are then usually one).
    static func hue(format: String) -> RGB {
        switch format {
        case "jpeg": RGB(0x1F77B4)
        case "png": RGB(0x8C564B)
        case "webp": RGB(0x2CA02C)
        case "avif": RGB(0xD62728)
        case "gif": RGB(0x9467BD)
        default: RGB(0x7F7F7F)
        }
    }

    func cell(_ kind: StrategyKind, _ limit: Int, format: String? = nil) -> String {
        shade(format.map(Self.hue(format:)) ?? Self.hue(kind), limit)
    }

    private func shade(_ base: RGB, _ limit: Int) -> String {
        guard limits.count > 1, let index = limits.firstIndex(of: limit) else { return base.hex }
        // From 35% darker to 45% lighter, evenly: shades of one hue stay told apart.
        let position = Double(index) / Double(limits.count - 1)
        return base.mixed(position < 0.5 ? RGB(0x000000) : RGB(0xFFFFFF), by: position < 0.5 ? 0.35 * (1 - 2 * position)
                                                                                              : 0.45 * (2 * position - 1)).hex
    }

    static func kind(_ name: String) -> String { kinds[name]!.hex }

    struct RGB: Hashable {
        let red: Double, green: Double, blue: Double

        init(_ value: Int) {
            red = Double((value >> 16) & 0xFF)
            green = Double((value >> 8) & 0xFF)
            blue = Double(value & 0xFF)
        }

        init(red: Double, green: Double, blue: Double) {
            (self.red, self.green, self.blue) = (red, green, blue)
        }

        func mixed(_ other: RGB, by share: Double) -> RGB {
            RGB(red: red + (other.red - red) * share, green: green + (other.green - green) * share,
                blue: blue + (other.blue - blue) * share)
        }

        var hex: String { String(format: "#%02x%02x%02x", Int(red.rounded()), Int(green.rounded()), Int(blue.rounded())) }
    }
}
