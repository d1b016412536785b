import Foundation

/// How numbers are printed for people and files, in one place so a number in a sentence of
/// report.md can be found again in the table or the CSV.
enum Format {
    /// CSV and Markdown: integers exactly, reals to 3 decimals, nothing for a non-finite value.
    static func csv(_ value: RunSummary.Value) -> String {
        switch value {
        case .text(let text): text
        case .integer(let value): String(value)
        case .real(let value): value.isFinite ? String(format: "%.3f", value) : ""
        }
    }

    /// A whole number if it is one, else 3 decimals (comparisons and the gate).
    static func compact(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.3f", value)
    }

    /// A ratio as a percentage with one decimal: 0.367 → "36.7%".
    static func percent(_ ratio: Double) -> String { String(format: "%.1f%%", ratio * 100) }

    /// Bytes as decimal megabytes with one decimal.
    static func megabytes(_ bytes: Double) -> String { String(format: "%.1f", bytes / 1_000_000) }

    /// "67.1 MB", "64.0 GB": bytes in MB of 10^6 bytes (the one megabyte imgbench uses: flags,
    /// tables, summary.csv), or GB of 10^9 from 10 GB up.
    static func size(_ bytes: Int) -> String {
        bytes >= 10_000_000_000 ? String(format: "%.1f GB", Double(bytes) / 1e9) : megabytes(Double(bytes)) + " MB"
    }

    /// Rounded to a whole number.
    static func whole(_ value: Double) -> String { String(format: "%.0f", value) }

    /// One decimal.
    static func tenths(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Milliseconds at the 3 decimals summary.csv keeps.
    static func milliseconds(_ value: Double) -> String { String(format: "%.3f ms", value) }

    /// A signed relative change: +12.5%.
    static func change(_ fraction: Double) -> String { String(format: "%+.1f%%", fraction * 100) }

    /// The nanoseconds one unit of the last place stands for, by the number of decimals.
    private static let nanosecondsPerPlace: [UInt64] = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1]

    /// Nanoseconds as milliseconds with `decimals` (0 to 6) places, rounded half up, in integer
    /// arithmetic: requests.csv writes several per request, and `String(format:)` through
    /// Foundation cost about half of the file's rendering. At 6 places it is exact.
    static func milliseconds(nanoseconds: UInt64, decimals: Int) -> String {
        precondition((0...6).contains(decimals), "0 to 6 decimals")
        let unit = Self.nanosecondsPerPlace[decimals]
        let scaled = (nanoseconds / unit) + (nanoseconds % unit >= (unit + 1) / 2 && unit > 1 ? 1 : 0)
        let perMillisecond = 1_000_000 / unit
        let whole = String(scaled / perMillisecond)
        guard decimals > 0 else { return whole }
        let fraction = String(scaled % perMillisecond)
        return whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}

extension RunSummary.Value {
    /// How CSV and Markdown print a value.
    var formatted: String { Format.csv(self) }
}
