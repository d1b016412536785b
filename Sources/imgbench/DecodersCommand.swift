import ArgumentParser
import Foundation
import ImageBench

/// `imgbench decoders`: the decode-cost table of this machine.
struct DecodersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decoders",
        abstract: "Measure each decoder on this machine: megapixels per second at full size and at 1/2, 1/4, 1/8.")

    @Option(help: "The photo's size, WIDTHxHEIGHT (each side 64 to 8000).")
    var size = "1200x900"

    @Option(parsing: .unconditional, help: "Seconds of decoding per format and scale (0.05 to 60).")
    var seconds = 1.0

    @Option(help: "Formats, comma-separated: \(ImageFormat.decodable.map(\.rawValue).joined(separator: ", ")).")
    var formats = ImageFormat.decodable.map(\.rawValue).joined(separator: ",")

    @Flag(help: "Print CSV instead of the table.")
    var csv = false

    func validate() throws {
        _ = try parsedSize()
        _ = try parsedFormats()
        guard seconds.isFinite, (0.05...60).contains(seconds) else { throw ValidationError("--seconds must be 0.05 to 60 (got \(seconds))") }
    }

    func parsedSize() throws -> PixelSize {
        let sides = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard sides.count == 2, sides.allSatisfy({ (64...8000).contains($0) }) else {
            throw ValidationError("--size: '\(size)' is not WIDTHxHEIGHT with each side 64 to 8000")
        }
        return PixelSize(width: sides[0], height: sides[1])
    }

    func parsedFormats() throws -> [ImageFormat] {
        let names = formats.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return try names.map { name in
            guard let format = ImageFormat(rawValue: name == "jpg" ? "jpeg" : name), ImageFormat.decodable.contains(format) else {
                throw ValidationError("--formats: unknown format '\(name)' (use \(ImageFormat.decodable.map(\.rawValue).joined(separator: ", ")))")
            }
            return format
        }
    }

    func run() throws {
        let size = try parsedSize()
        let rows = try CommandFailure.catching("decoding failed") {
            try DecoderCost.measure(size: size, seconds: seconds, formats: try parsedFormats()) { row in
                FileHandle.standardError.write(Data("\(row.format.rawValue) 1/\(row.scale): \(String(format: "%.2f", row.milliseconds)) ms\n".utf8))
            }
        }
        print(csv ? DecoderCost.csv(rows) : DecoderCost.table(rows, size: size), terminator: "")
    }
}
