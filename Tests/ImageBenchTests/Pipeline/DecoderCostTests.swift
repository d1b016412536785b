import Foundation
import Testing
@testable import ImageBench

/// `imgbench decoders`: what it measures (not how fast: the machine is shared).
@Suite("The decode-cost table")
struct DecoderCostTests {
    @Test("every format at every scale, the output sizes the pipeline would make, full size the reference")
    func rows() throws {
        let size = PixelSize(width: 400, height: 300)
        var heard = 0
        let rows = try DecoderCost.measure(size: size, seconds: 0.01, formats: [.jpeg, .webp, .avif]) { _ in heard += 1 }
        #expect(rows.count == 12 && heard == 12)
        #expect(rows.map(\.scale) == [1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8])
        for row in rows {
            let side = PixelSize(width: 400 / row.scale, height: 300 / row.scale)
            #expect(row.output == side, "\(row.format) 1/\(row.scale): \(row.output)")
            #expect(row.decodes >= 3 && row.milliseconds > 0 && row.megapixelsPerSecond > 0)
            #expect(row.library.contains(row.format == .jpeg ? "libjpeg-turbo" : "lib\(row.format.rawValue)"))
            if row.scale == 1 { #expect(row.relativeToFull == 1) }
            #expect(abs(row.megapixelsPerSecond * row.milliseconds / 1e3 - 0.12) < 1e-9, "MP/s counts the file's 0.12 MP")
        }
        let csv = CSVTable.parse(DecoderCost.csv(rows))
        #expect(csv.first == ["format", "scale", "output_width", "output_height", "file_bytes", "ms_median", "megapixels_per_s",
                              "relative_to_full", "decodes", "library"] && csv.count == 13)
    }
}

extension ChildProcessRuns {
    @Suite("imgbench decoders")
    struct DecodersCommandTests {
        @Test("prints the table (or CSV) for the formats asked; a bad size or format is a one-line error")
        func command() async throws {
            try await onOwnThread {
                let run = try Fixtures.imgbench(["decoders", "--size", "160x120", "--seconds", "0.05", "--formats", "gif,png", "--csv"])
                #expect(run.status == 0, "\(run.output)")
                let lines = run.output.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("gif,") || $0.hasPrefix("png,") }
                #expect(lines.count == 8 && lines.contains { $0.hasPrefix("gif,8,20,15,") }, "\(run.output)")
                for bad in [["--size", "10x10"], ["--formats", "heic"], ["--seconds", "0"]] {
                    let refused = try Fixtures.imgbench(["decoders"] + bad)
                    #expect(refused.status == 64 && refused.output.split(separator: "\n").count == 1, "\(bad): \(refused.output)")
                }
            }
        }
    }
}
