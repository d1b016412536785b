import CShims
import Foundation
import ImageBench

// The deterministic parts of imgbench's own cost, for counting instructions under callgrind
// (scripts/instruction-check): counts do not move with a shared machine's noise, so a rise of a
// few percent in the harness's cost can fail CI where wall time could not. Only the work inside
// `measured` is counted (callgrind --toggle-collect=ib_measured); setting up is not.
//
//   harness-cost corpus                     make 24 corpus images (synthesis + JPEG/PNG encoding)
//   harness-cost decode [--extra-decodes P] decode 60 corpus images to the cell and filter them;
//                                           P% of them decoded twice (a deliberate slowdown)
//   harness-cost reports DIR                render every report of the results directory DIR

/// Runs `body` inside the symbol callgrind counts.
func measured(_ body: () -> Void) {
    withoutActuallyEscaping(body) { body in
        var work = body
        withUnsafeMutablePointer(to: &work) { pointer in
            ib_measured({ context in context!.assumingMemoryBound(to: (() -> Void).self).pointee() }, pointer)
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("harness-cost: \(message)\n".utf8))
    exit(64)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let cell = ImagePipeline.defaultTargetSize
switch arguments.first {
case "corpus":
    measured {
        for id in 0..<24 { blackHole(ImageCorpus.makeImage(id: id, seed: 1).bytes.count) }
    }
case "decode":
    var extraPercent = 0
    if arguments.count == 3, arguments[1] == "--extra-decodes" {
        guard let percent = Int(arguments[2]), (0...100).contains(percent) else { fail("--extra-decodes takes 0 to 100") }
        extraPercent = percent
    } else if arguments.count != 1 {
        fail("usage: harness-cost decode [--extra-decodes PERCENT]")
    }
    let images = (0..<60).map { ImageCorpus.makeImage(id: $0, seed: 1) }
    // Every decode in a run can be stopped (its load's token, its deadline): counted with the
    // same checks, so their cost is in the phase.
    let token = LoadToken()
    _ = token.begin()
    let limits = DecodeLimits(stop: DecodeStop(token: token, deadline: MonotonicClock().now() + 3_600_000_000_000))
    // Every k-th image decoded a second time adds about extraPercent% to the phase.
    let every = extraPercent > 0 ? max(1, 100 / extraPercent) : Int.max
    measured {
        for (index, image) in images.enumerated() {
            for _ in 0..<(index % every == 0 && extraPercent > 0 ? 2 : 1) {
                var decoded = Downsampler.aspectFill(try! ImageDecoder().decode(image.bytes, targetSize: cell, limits: limits), to: cell)
                ImageFilter.sepia.apply(to: &decoded)
                blackHole(decoded.pixels.count)
            }
        }
    }
case "reports":
    guard arguments.count == 2 else { fail("usage: harness-cost reports DIR") }
    let plan: BenchmarkPlan
    let results: BenchmarkResults
    do {
        plan = try RecordedPlan.read(directory: arguments[1]).unsharded
        results = try ShardMerge.merge([arguments[1]], plan: plan, requireAllClients: false).results
    } catch {
        fail("\(arguments[1]): \(error)")
    }
    measured {
        for writer in Reports.all { blackHole(try! writer.render(results).utf8.count) }
    }
default:
    fail("usage: harness-cost corpus | decode [--extra-decodes PERCENT] | reports DIR")
}

/// Keeps a result alive so the optimiser cannot drop the work that made it.
@inline(never) func blackHole(_ value: Int) { if value == -1 { print(value) } }
