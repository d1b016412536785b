import CShims

/// The format the generated corpus is encoded in (`--formats`): today's mix, or every image in one
/// format. Every format encodes the same pictures (same sizes, same pixels, the same avatars with
/// an alpha mask), so a comparison of formats compares encodings of identical content.
///
/// Quality is matched by SSIM (`SSIM.mean`, luma): each format's setting was chosen so its mean
/// SSIM against the source pixels equals JPEG's at the corpus's JPEG quality, measured on the
/// corpus's first 24 pictures with the Debian encoders (libjpeg-turbo 2.1.5, libwebp 1.2.4,
/// libavif 0.11.1 with libaom 3.6.0 at speed 8). A test holds each format within 0.01 of JPEG's.
///
/// | JPEG quality (SSIM) | WebP quality (SSIM) | AVIF quantizer (SSIM) |
/// |---|---|---|
/// | 85: avatars, thumbnails (0.878) | 79 (0.875) | 22 (0.875) |
/// | 80: photos (0.835) | 78 (0.843) | 23 (0.838) |
///
/// PNG is lossless. GIF has no quality: 256 colours by giflib's median cut, as GIF encoders do.
public enum CorpusFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Today's default: avatars half PNG (some with alpha), everything else JPEG.
    case mixed
    /// Every image in one format.
    case only(ImageFormat)

    public static let all: [CorpusFormat] = [.mixed] + ImageFormat.decodable.map { .only($0) }

    public init(parsing text: String) throws(PlanError) {
        let name = text.trimmingCharacters(in: .whitespaces).lowercased()
        if name == "jpeg+png" || name == "mixed" { self = .mixed; return }
        let alias = name == "jpg" ? "jpeg" : name
        guard let format = ImageFormat(rawValue: alias), ImageFormat.decodable.contains(format) else {
            throw PlanError("--formats: unknown format '\(text)' (use \(Self.all.map(\.description).joined(separator: ", ")))")
        }
        self = .only(format)
    }

    /// `jpeg+png`, `jpeg`, `webp`, `avif`, `png`, `gif`: the flag's value and the reports' label.
    public var description: String {
        switch self {
        case .mixed: "jpeg+png"
        case .only(let format): format.rawValue
        }
    }

    /// The file format an image of this corpus has, given what the mix would choose for it.
    func fileFormat(mixedChoice: ImageFormat) -> ImageFormat {
        switch self {
        case .mixed: mixedChoice
        case .only(let format): format
        }
    }

    /// What the cache folder's name adds, with the encoder's version where the bytes depend on it
    /// (JPEG's and PNG's are in the folder above).
    var cacheSuffix: String {
        switch self {
        case .mixed: ""
        case .only(.jpeg): "-jpeg-only"
        case .only(.webp): "-webp\(WebPDecoder.libraryVersion)"
        case .only(.avif): "-avif\(String(cString: ib_avif_version()))-aom\(Self.aomVersion)"
        case .only(.gif): "-gif\(GIFDecoder.libraryVersion)"
        case .only(let format): "-\(format.rawValue)"
        }
    }

    private static let aomVersion: String = {
        // "dav1d [dec]:1.0.0, aom [enc/dec]:3.6.0-..." → "3.6.0-..."
        let codecs = AVIFDecoder.libraryVersion
        guard let aom = codecs.range(of: "aom [enc/dec]:") ?? codecs.range(of: "aom [enc]:") else { return "none" }
        return String(codecs[aom.upperBound...].prefix { $0 != "," && $0 != ")" && $0 != " " })
    }()

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try CorpusFormat(parsing: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The SSIM-matched settings above, per format: how one picture is encoded.
enum CorpusEncoding {
    /// `rgb` always; `alpha` for the avatars that have a round mask (PNG of the mix; every format
    /// with alpha keeps it, JPEG drops it). `jpegQuality` is the mix's quality for this picture.
    static func encode(_ format: ImageFormat, rgb: [UInt8], alpha: [UInt8]?, size: PixelSize, jpegQuality: Int,
                       progressive: Bool) throws -> [UInt8] {
        let rgba = alpha.map { alpha in
            var rgba = [UInt8](repeating: 0, count: size.pixelCount * 4)
            for i in 0..<size.pixelCount {
                rgba[i * 4] = rgb[i * 3]; rgba[i * 4 + 1] = rgb[i * 3 + 1]; rgba[i * 4 + 2] = rgb[i * 3 + 2]; rgba[i * 4 + 3] = alpha[i]
            }
            return rgba
        }
        let photo = jpegQuality <= 80
        switch format {
        case .png:
            return try ImageEncoder.png(rgba ?? rgb, size: size, layout: rgba == nil ? .rgb : .rgba)
        case .webp:
            return try ImageEncoder.webp(rgba ?? rgb, size: size, channels: rgba == nil ? 3 : 4, quality: photo ? 78 : 79)
        case .avif:
            return try ImageEncoder.avif(rgba ?? rgb, size: size, channels: rgba == nil ? 3 : 4, quantizer: photo ? 23 : 22)
        case .gif:
            let quantized = try ImageEncoder.quantize(rgb, size: size, colors: alpha == nil ? 256 : 255)
            guard let alpha else { return try ImageEncoder.gif(frames: [quantized.indices], size: size, palette: quantized.palette) }
            // The clear pixels take the one index the quantizer left free.
            let clear = quantized.palette.count / 3
            let indices = zip(quantized.indices, alpha).map { $1 < 128 ? UInt8(clear) : $0 }
            return try ImageEncoder.gif(frames: [indices], size: size, palette: quantized.palette + [0, 0, 0], transparent: clear)
        default:
            return try ImageEncoder.jpeg(rgb, size: size, channels: 3, quality: jpegQuality, progressive: progressive)
        }
    }
}
