/// Text that came from a peer, a file or a URL, made safe to print: a hostile server's path or a
/// manifest's URL must not forge a log line (`%0a`), move a terminal's cursor (`%1b[`), or fill a
/// screen (a 52 MB URL). Control characters become visible escapes and long text is cut, saying
/// how much was left out.
public enum UntrustedText {
    /// The longest piece of untrusted text a line shows, in characters.
    public static let defaultLimit = 300

    /// `text` on one line: C0 and C1 controls, DEL and the bidirectional overrides (which reorder
    /// what a terminal shows) escaped as `\u{…}`, then cut to `limit` characters.
    public static func line(_ text: String, limit: Int = defaultLimit) -> String {
        var out = ""
        var shown = 0, consumed = 0
        for scalar in text.unicodeScalars {
            guard shown < limit else {
                return out + "… (\(text.utf8.count - consumed) more bytes)"
            }
            consumed += UTF8.width(scalar)
            if isUnsafe(scalar) {
                out += scalar.value < 0x100 ? "\\x" + hex(scalar.value, digits: 2) : "\\u{" + hex(scalar.value, digits: 4) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
            shown += 1
        }
        return out
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidi marks, overrides, isolates
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// Arithmetic on numbers that came from a peer or a file (a Content-Length, a Content-Range, a
/// manifest's sizes): they are hostile until checked, and a sum of them must not trap.
enum CheckedNumber {
    /// The largest size in bytes a header or manifest may give (1 TiB): any real image is far
    /// below it, and a million of them still sum inside Int64.
    static let maxByteCount = 1 << 40

    /// A byte count written in decimal digits only (no sign, no spaces), at most `maxByteCount`;
    /// nil otherwise. What curl does with every header number, before any arithmetic on it.
    static func byteCount<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 13, text.utf8.allSatisfy({ (48...57).contains($0) }),
              let value = Int(text), value <= maxByteCount else { return nil }
        return value
    }

    /// `a + b`, held at Int.max instead of trapping: a total of hostile sizes is at worst wrong
    /// by saying "huge", never a crash.
    static func sum(_ a: Int, _ b: Int) -> Int {
        let (value, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? Int.min : Int.max) : value
    }
}
