import Foundation

/// `--inject decode=+Nms` or `filter=+Nms`: a decoder or processor that does its work, then blocks
/// the worker for a fixed time, which is what slower code would cost it. A testing aid (so a gate
/// can be shown to catch a regression of known size), never part of a real measurement.
struct InjectedSlowdown<Wrapped: Sendable>: Sendable {
    let wrapped: Wrapped
    let milliseconds: Double

    init(_ wrapped: Wrapped, milliseconds: Double) {
        self.wrapped = wrapped
        self.milliseconds = milliseconds
    }

    // A blocking sleep, not a suspension: slower decode or filter code holds its thread, and the
    // strategies differ in what that costs them.
    private func stall() {
        guard milliseconds > 0 else { return }
        Thread.sleep(forTimeInterval: milliseconds / 1000)
    }
}

extension InjectedSlowdown: ImageDecoding where Wrapped: ImageDecoding {
    /// Only a decode that succeeds is slowed: bytes that fail, fail as fast as before.
    func decode(_ bytes: [UInt8], targetSize: PixelSize?, limits: DecodeLimits) throws(DecodeError) -> DecodedImage {
        let image = try wrapped.decode(bytes, targetSize: targetSize, limits: limits)
        stall()
        return image
    }
}

extension InjectedSlowdown: ImageProcessing where Wrapped: ImageProcessing {
    func apply(to image: inout DecodedImage) {
        wrapped.apply(to: &image)
        stall()
    }
}

extension FaultInjection {
    /// `decoder`, wrapped in the injected decode slowdown if there is one, else as it is.
    func slowing(decoder: some ImageDecoding) -> any ImageDecoding {
        decodeMilliseconds > 0 ? InjectedSlowdown(decoder, milliseconds: decodeMilliseconds) : decoder
    }

    /// `processor`, wrapped in the injected filter slowdown if there is one, else as it is.
    func slowing(processor: some ImageProcessing) -> any ImageProcessing {
        filterMilliseconds > 0 ? InjectedSlowdown(processor, milliseconds: filterMilliseconds) : processor
    }
}
