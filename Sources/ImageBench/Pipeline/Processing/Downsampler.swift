import CShims

/// Scales a decoded image to the cell's pixel size the way a feed's image view shows it
/// (`scaleAspectFill` with clipping): fill the target, crop the overflow around the centre, and
/// never upscale. Each output pixel is the average of the source pixels it covers (a box filter),
/// so a 1200 px photo shrunk to a 240 px thumbnail does not alias. The geometry and the filter are
/// in C (CShims/fill.c), shared with the JPEG decoder that filters rows as it decodes them.
public enum Downsampler {
    public static func aspectFill(_ image: DecodedImage, to target: PixelSize) -> DecodedImage {
        let source = image.size
        guard target.width > 0, target.height > 0, source.pixelCount > 0 else { return image }
        var geometry = ib_fill_geometry()
        ib_fill_geometry_for(UInt32(source.width), UInt32(source.height), UInt32(target.width), UInt32(target.height), &geometry)
        let size = PixelSize(width: Int(geometry.out_width), height: Int(geometry.out_height))
        if size == source { return image }
        var scratch = [UInt32](repeating: 0, count: ib_fill_scratch_count(&geometry))
        let output = [UInt8](unsafeUninitializedCapacity: size.pixelCount * 4) { buffer, count in
            image.pixels.withUnsafeBufferPointer { source in
                ib_box_filter_rgba(source.baseAddress, UInt32(image.width), &geometry, &scratch, buffer.baseAddress)
            }
            count = size.pixelCount * 4
        }
        return DecodedImage(size: size, pixels: output, sourceSize: image.sourceSize)
    }
}
