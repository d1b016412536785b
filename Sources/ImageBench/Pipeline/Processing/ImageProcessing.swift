/// The step after decoding and the downsample to the cell: changes an image's pixels in place, as
/// the tutorials' "beautify" step does. `ImageFilter` (`--filter`) is the default;
/// `InjectedSlowdown` wraps one to slow it down on purpose.
protocol ImageProcessing: Sendable {
    func apply(to image: inout DecodedImage)
}
