import CShims
import Foundation
import Histogram

/// HdrHistogram's standard compressed encoding (V2, the base64 "HISTFAAA…" form the Java, C, Go
/// and Python implementations read and write): a big-endian header, the counts array as ZigZag
/// LEB128 with runs of zeros folded into one negative number, deflated with zlib. A run's
/// histograms in histograms.json take a few hundred bytes each instead of the full count array
/// (~380 kB a run through JSONEncoder), and other tools can load them.
enum HistogramEncoding {
    static let encodingCookie: UInt32 = 0x1c84_9313
    static let compressionCookie: UInt32 = 0x1c84_9314

    struct DecodeError: Error, CustomStringConvertible {
        let description: String
    }

    /// The counts array's layout for a lowest discernible value and significant digits, as every
    /// implementation computes it (Java's AbstractHistogram), so indexes mean the same values.
    struct Layout {
        let unitMagnitude: Int
        let subBucketHalfCountMagnitude: Int
        let subBucketHalfCount: Int
        let subBucketMask: UInt64
        let leadingZeroCountBase: Int

        init(lowest: UInt64, significantDigits: Int) {
            unitMagnitude = Int(Double.log2(Double(lowest)).rounded(.down))
            let largestSingleUnit = 2 * Int(pow(10, Double(significantDigits)))
            let subBucketCountMagnitude = Int(Double.log2(Double(largestSingleUnit)).rounded(.up))
            subBucketHalfCountMagnitude = max(subBucketCountMagnitude, 1) - 1
            subBucketHalfCount = 1 << subBucketHalfCountMagnitude
            subBucketMask = UInt64(2 * subBucketHalfCount - 1) << unitMagnitude
            leadingZeroCountBase = 64 - unitMagnitude - subBucketHalfCountMagnitude - 1
        }

        func index(of value: UInt64) -> Int {
            let bucket = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
            let subBucket = Int(value >> UInt64(bucket + unitMagnitude))
            return ((bucket + 1) << subBucketHalfCountMagnitude) + (subBucket - subBucketHalfCount)
        }

        func value(at index: Int) -> UInt64 {
            var bucket = (index >> subBucketHalfCountMagnitude) - 1
            var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
            if bucket < 0 {
                subBucket -= subBucketHalfCount
                bucket = 0
            }
            return UInt64(subBucket) << UInt64(bucket + unitMagnitude)
        }
    }

    /// The histogram in base64, given the bounds it was made with.
    static func encode(_ histogram: Histogram<UInt64>, highest: UInt64) -> String {
        let digits = Int(histogram.numberOfSignificantValueDigits.rawValue)
        let layout = Layout(lowest: histogram.lowestDiscernibleValue, significantDigits: digits)
        var counts: [Int: UInt64] = [:]
        for step in histogram.recordedValues() { counts[layout.index(of: step.value), default: 0] += step.count }
        var payload: [UInt8] = []
        var index = 0
        let limit = (counts.keys.max() ?? -1) + 1
        while index < limit {
            let count = counts[index] ?? 0
            index += 1
            var zeros = 0
            if count == 0 {
                zeros = 1
                while index < limit && counts[index] == nil { zeros += 1; index += 1 }
            }
            appendZigZag(zeros > 1 ? -Int64(zeros) : Int64(count), to: &payload)
        }
        var plain: [UInt8] = []
        appendBigEndian(UInt64(encodingCookie), bytes: 4, to: &plain)
        appendBigEndian(UInt64(payload.count), bytes: 4, to: &plain)
        appendBigEndian(0, bytes: 4, to: &plain)  // normalizing index offset
        appendBigEndian(UInt64(digits), bytes: 4, to: &plain)
        appendBigEndian(histogram.lowestDiscernibleValue, bytes: 8, to: &plain)
        appendBigEndian(highest, bytes: 8, to: &plain)
        appendBigEndian((1.0 as Double).bitPattern, bytes: 8, to: &plain)  // integer-to-double ratio
        plain += payload
        var compressedLength = compressBound(uLong(plain.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        let status = compress2(&compressed, &compressedLength, plain, uLong(plain.count), Z_DEFAULT_COMPRESSION)
        precondition(status == Z_OK, "zlib compress2 failed (\(status))")
        var wire: [UInt8] = []
        appendBigEndian(UInt64(compressionCookie), bytes: 4, to: &wire)
        appendBigEndian(UInt64(compressedLength), bytes: 4, to: &wire)
        wire += compressed.prefix(Int(compressedLength))
        return Data(wire).base64EncodedString()
    }

    /// The counts of an encoded histogram, recorded into `histogram` (made with the same bounds),
    /// each at the lowest value of its bucket: the same buckets, so the same percentiles. The
    /// encoding does not keep the exact smallest and largest values, which percentiles are clamped
    /// to; given them (`exact`), one count of their buckets is recorded at each.
    static func decode(_ text: String, exact: (min: UInt64, max: UInt64)? = nil,
                       into histogram: inout Histogram<UInt64>) throws(DecodeError) {
        guard let wire = Data(base64Encoded: text).map({ [UInt8]($0) }), wire.count >= 8,
              readBigEndian(wire, at: 0, bytes: 4) == UInt64(compressionCookie),
              Int(readBigEndian(wire, at: 4, bytes: 4)) == wire.count - 8 else {
            throw DecodeError(description: "not an HdrHistogram V2 compressed histogram")
        }
        // The header gives the payload's length: inflate into exactly that much.
        var plainLength = uLong(64 * 1024)
        var plain = [UInt8](repeating: 0, count: Int(plainLength))
        var status = Z_BUF_ERROR
        while true {
            plainLength = uLong(plain.count)
            status = uncompress(&plain, &plainLength, Array(wire[8...]), uLong(wire.count - 8))
            guard status == Z_BUF_ERROR, plain.count < 1 << 28 else { break }
            plain = [UInt8](repeating: 0, count: plain.count * 4)
        }
        guard status == Z_OK, plainLength >= 40, readBigEndian(plain, at: 0, bytes: 4) == UInt64(encodingCookie) else {
            throw DecodeError(description: "a damaged HdrHistogram payload (zlib status \(status))")
        }
        let payloadLength = Int(readBigEndian(plain, at: 4, bytes: 4))
        guard readBigEndian(plain, at: 8, bytes: 4) == 0, 40 + payloadLength <= Int(plainLength) else {
            throw DecodeError(description: "a normalized or truncated HdrHistogram payload")
        }
        let digits = Int(readBigEndian(plain, at: 12, bytes: 4))
        // Kept at the precision it was written with (a time series' two digits stay two, so it
        // adds to the histograms of the shards it is merged with).
        if let written = SignificantDigits(rawValue: Int8(clamping: digits)), written != histogram.numberOfSignificantValueDigits {
            let autoResize = histogram.autoResize
            histogram = Histogram(highestTrackableValue: histogram.highestTrackableValue, numberOfSignificantValueDigits: written)
            histogram.autoResize = autoResize
        }
        let layout = Layout(lowest: readBigEndian(plain, at: 16, bytes: 8), significantDigits: digits)
        var offset = 40, index = 0
        while offset < 40 + payloadLength {
            guard let value = readZigZag(plain, at: &offset, end: 40 + payloadLength) else {
                throw DecodeError(description: "a truncated HdrHistogram count")
            }
            if value < 0 {
                index += Int(-value)
            } else {
                if value > 0 {
                    var rest = UInt64(value)
                    for extreme in [exact?.min, exact?.max].compactMap({ $0 }) where rest > 0 && layout.index(of: extreme) == index {
                        _ = histogram.record(extreme)
                        rest -= 1
                    }
                    // The rest of the extremes' buckets within the extremes: a bucket's lowest value
                    // below the exact minimum would become the minimum (and percentile 0).
                    let lowest = layout.value(at: index)
                    let value = exact.map { Swift.min(Swift.max(lowest, $0.min), $0.max) } ?? lowest
                    if rest > 0 { _ = histogram.record(value, count: rest) }
                }
                index += 1
            }
        }
    }

    private static func appendBigEndian(_ value: UInt64, bytes: Int, to buffer: inout [UInt8]) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func readBigEndian(_ buffer: [UInt8], at offset: Int, bytes: Int) -> UInt64 {
        guard offset + bytes <= buffer.count else { return 0 }
        return (0..<bytes).reduce(0) { $0 << 8 | UInt64(buffer[offset + $1]) }
    }

    private static func appendZigZag(_ value: Int64, to buffer: inout [UInt8]) {
        var rest = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while rest >= 0x80 {
            buffer.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        buffer.append(UInt8(rest))
    }

    private static func readZigZag(_ buffer: [UInt8], at offset: inout Int, end: Int) -> Int64? {
        var value: UInt64 = 0, shift: UInt64 = 0
        while offset < end && shift < 64 {
            let byte = buffer[offset]
            offset += 1
            // HdrHistogram's ninth byte carries eight bits and no continuation flag.
            if shift == 56 {
                value |= UInt64(byte) << 56
                return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
            shift += 7
        }
        return nil
    }
}
