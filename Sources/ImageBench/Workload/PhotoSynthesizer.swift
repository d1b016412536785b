/// Paints photo-like RGB pixels from a seed: a sky-to-ground gradient, soft blobs of colour, smooth
/// value noise at two scales and per-pixel grain. The point is realistic decoder work: flat colour
/// compresses to almost nothing and decodes in no time, a photo does not.
public enum PhotoSynthesizer {
    public static func rgb(size: PixelSize, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let width = size.width, height = size.height
        func color() -> (Double, Double, Double) { (random.unit() * 255, random.unit() * 255, random.unit() * 255) }
        let top = color(), bottom = color()
        struct Blob { var x, y, radius2: Double; var r, g, b: Double }
        let blobs = (0..<4).map { _ in
            let radius = (0.15 + random.unit() * 0.35) * Double(min(width, height))
            let c = color()
            return Blob(x: random.unit() * Double(width), y: random.unit() * Double(height),
                        radius2: radius * radius, r: c.0, g: c.1, b: c.2)
        }
        // Lattice noise: random values on a coarse grid, bilinearly interpolated.
        let cell = max(4, min(width, height) / 6)
        let gridWidth = width / cell + 2, gridHeight = height / cell + 2
        let lattice = (0..<(gridWidth * gridHeight)).map { _ in random.unit() * 60 - 30 }
        let grainSeed = random.next()

        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let fy = Double(y) / Double(max(1, height - 1))
                let base = (top.0 + (bottom.0 - top.0) * fy, top.1 + (bottom.1 - top.1) * fy,
                            top.2 + (bottom.2 - top.2) * fy)
                let gy = y / cell, ty = Double(y % cell) / Double(cell)
                for x in 0..<width {
                    var r = base.0, g = base.1, b = base.2
                    for blob in blobs {
                        let dx = Double(x) - blob.x, dy = Double(y) - blob.y
                        let d2 = dx * dx + dy * dy
                        if d2 < blob.radius2 {
                            let w = 1 - d2 / blob.radius2
                            r += (blob.r - r) * w; g += (blob.g - g) * w; b += (blob.b - b) * w
                        }
                    }
                    let gx = x / cell, tx = Double(x % cell) / Double(cell)
                    let i = gy * gridWidth + gx
                    let top = lattice[i] + (lattice[i + 1] - lattice[i]) * tx
                    let below = lattice[i + gridWidth] + (lattice[i + gridWidth + 1] - lattice[i + gridWidth]) * tx
                    let noise = top + (below - top) * ty
                    let grain = Double(Int(truncatingIfNeeded: SeededRandom.mix(grainSeed &+ UInt64(y &* width &+ x)) & 15) - 8)
                    let offset = (y * width + x) * 3
                    out[offset] = clamp(r + noise + grain)
                    out[offset + 1] = clamp(g + noise * 0.8 + grain)
                    out[offset + 2] = clamp(b + noise * 0.6 + grain)
                }
            }
        }
        return pixels
    }

    @inline(__always) private static func clamp(_ value: Double) -> UInt8 {
        UInt8(max(0, min(255, value)))
    }
}
