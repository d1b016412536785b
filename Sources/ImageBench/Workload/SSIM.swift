/// Structural similarity (Wang, Bovik, Sheikh and Simoncelli, 2004) of two images' luma: how the
/// corpus matches quality across formats (the same picture at the same SSIM in each), and how a
/// user can check it. 8×8 windows every 4 pixels, the paper's constants for 8-bit samples; 1 is
/// identical.
enum SSIM {
    /// Mean SSIM of two images of one size, each RGB (3 channels) or RGBA (4; alpha ignored).
    static func mean(_ a: [UInt8], channelsA: Int, _ b: [UInt8], channelsB: Int, size: PixelSize) -> Double {
        precondition(a.count == size.pixelCount * channelsA && b.count == size.pixelCount * channelsB, "buffers do not match \(size)")
        let x = luma(a, channels: channelsA), y = luma(b, channels: channelsB)
        let window = 8, step = 4
        guard size.width >= window, size.height >= window else { return x == y ? 1 : 0 }
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        var total = 0.0, windows = 0
        for top in stride(from: 0, through: size.height - window, by: step) {
            for left in stride(from: 0, through: size.width - window, by: step) {
                var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
                for row in top..<top + window {
                    let base = row * size.width + left
                    for i in base..<base + window {
                        let p = x[i], q = y[i]
                        sx += p; sy += q; sxx += p * p; syy += q * q; sxy += p * q
                    }
                }
                let n = Double(window * window)
                let mx = sx / n, my = sy / n
                let vx = sxx / n - mx * mx, vy = syy / n - my * my, cov = sxy / n - mx * my
                total += ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
                windows += 1
            }
        }
        return total / Double(windows)
    }

    /// BT.601 luma, the Y that JPEG, WebP and AVIF (by default) code at full resolution.
    static func luma(_ pixels: [UInt8], channels: Int) -> [Double] {
        stride(from: 0, to: pixels.count, by: channels).map { (i: Int) -> Double in
            let r = 0.299 * Double(pixels[i]), g = 0.587 * Double(pixels[i + 1]), b = 0.114 * Double(pixels[i + 2])
            return r + g + b
        }
    }
}
