import CShims

/// An image container, identified from its first bytes: a server's Content-Type or a URL's
/// extension can lie, magic bytes do not.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, gif, webp, avif, unknown

    /// The formats a corpus can be made in and the decoders read, in the order reports list them.
    public static let decodable: [ImageFormat] = [.jpeg, .png, .webp, .avif, .gif]

    init(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(32))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("GIF8".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4) && Self.hasAVIFBrand(head) {
            self = .avif
        } else {
            self = .unknown
        }
    }

    /// An ISOBMFF `ftyp` box whose major brand, or one of its compatible brands within the first
    /// 32 bytes, is `avif` (still image) or `avis` (image sequence).
    private static func hasAVIFBrand(_ head: [UInt8]) -> Bool {
        let boxEnd = min(head.count, Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3]))
        let brands = Set(["avif", "avis"].map { Array($0.utf8) })
        // Major brand at 8, minor version at 12, compatible brands from 16, four bytes each.
        return stride(from: 8, to: boxEnd - 3, by: 4).contains { offset in
            offset != 12 && brands.contains(Array(head[offset..<offset + 4]))
        }
    }

    /// Its decoder (each is stateless, so making one per image costs nothing); nil: not an image.
    var decoder: (any ImageDecoding)? {
        switch self {
        case .jpeg: JPEGDecoder()
        case .png: PNGDecoder()
        case .webp: WebPDecoder()
        case .avif: AVIFDecoder()
        case .gif: GIFDecoder()
        case .unknown: nil
        }
    }

    /// The library that decodes it and its version, as reports print them ("libwebp 1.2.4").
    var decoderLibrary: String {
        switch self {
        case .jpeg:
            let version = Int(ib_libjpeg_version())
            return "libjpeg-turbo \(version / 1_000_000).\(version / 1_000 % 1_000).\(version % 1_000)"
        case .png: return "libpng \(String(cString: ib_libpng_version()))"
        case .webp: return "libwebp \(WebPDecoder.libraryVersion)"
        case .avif: return "libavif \(AVIFDecoder.libraryVersion)"
        case .gif: return "giflib \(GIFDecoder.libraryVersion)"
        case .unknown: return "none"
        }
    }

    /// The file extension the corpus and server use.
    var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .unknown: "application/octet-stream"
        }
    }
}
