import CShims
import Foundation

/// Generated images kept on disk, so a start does not pay ~5 ms of CPU an image to make them
/// again: every run, every gate child and every `serve` after the first loads them. An image's
/// bytes depend only on the generator, the encoders (libjpeg-turbo's and libpng's versions), the
/// seed, its id and the corpus format, so the cache is a folder per generator and encoder versions,
/// seed and format (with that format's encoder version) with one file per id, and serves any count.
///
/// Each file is verified when read (magic, header, length and an FNV-1a checksum of the bytes):
/// a damaged or foreign file is regenerated and rewritten, never used. Files are written under a
/// temporary name and renamed, so processes sharing the cache never see half a file.
public struct CorpusCache: Sendable {
    let directory: URL

    /// Bump when `ImageCorpus.makeImage` or the encoders change the bytes they make (a test pins
    /// the first images' checksums, so a change that forgets this fails).
    static let generatorVersion = 1

    init(directory: URL) {
        self.directory = directory
    }

    /// `$XDG_CACHE_HOME/imgbench`, else `~/.cache/imgbench`; nil with neither.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> CorpusCache? {
        if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty {
            return CorpusCache(directory: URL(fileURLWithPath: cache).appendingPathComponent("imgbench"))
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return CorpusCache(directory: URL(fileURLWithPath: home).appendingPathComponent(".cache/imgbench"))
    }

    /// The folder of one seed's images.
    func folder(seed: UInt64, format: CorpusFormat) -> URL {
        directory.appendingPathComponent("corpus-v\(Self.generatorVersion)-\(Self.encoders)/seed-\(seed)\(format.cacheSuffix)")
    }

    /// The encoders' versions, as a folder name's part: another libjpeg-turbo may encode other bytes.
    static let encoders = "jpeg\(ib_libjpeg_version())-png\(String(cString: ib_libpng_version()))"

    /// The file format's mark (IBC1 files, checksummed byte by byte, read as foreign and are remade).
    private static let magic: [UInt8] = Array("IBC2".utf8)
    /// Magic, width, height, body length (little-endian 32 bits each) and the body's checksum
    /// (64 bits); the format is the body's own (sniffed).
    private static let headerSize = 4 + 4 + 4 + 4 + 8

    /// The cached image, or nil when it is missing; `damaged` is set when a file was there but
    /// did not verify.
    func load(id: Int, seed: UInt64, format corpusFormat: CorpusFormat, damaged: inout Bool) -> CorpusImage? {
        let file = folder(seed: seed, format: corpusFormat).appendingPathComponent("\(id).img")
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let bytes = [UInt8](data)
        func field(_ offset: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
        }
        guard bytes.count >= Self.headerSize, Array(bytes[0..<4]) == Self.magic, Int(field(12, 4)) == bytes.count - Self.headerSize else {
            damaged = true
            return nil
        }
        let body = Array(bytes[Self.headerSize...])
        let format = ImageFormat(sniffing: body)
        guard Self.checksum(body) == field(16, 8), ImageFormat.decodable.contains(format) else {
            damaged = true
            return nil
        }
        return CorpusImage(id: id, format: format, size: PixelSize(width: Int(field(4, 4)), height: Int(field(8, 4))), bytes: body)
    }

    /// Writes an image (best effort: a cache that cannot be written only costs the next start).
    func store(_ image: CorpusImage, seed: UInt64, format: CorpusFormat) {
        let folder = folder(seed: seed, format: format)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var bytes = Self.magic
        func append(_ value: UInt64, _ width: Int) { for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) } }
        append(UInt64(image.size.width), 4)
        append(UInt64(image.size.height), 4)
        append(UInt64(image.bytes.count), 4)
        append(Self.checksum(image.bytes), 8)
        bytes += image.bytes
        let temporary = folder.appendingPathComponent(".tmp-\(getpid())-\(image.id)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(bytes)) else { return }
        if rename(temporary.path, folder.appendingPathComponent("\(image.id).img").path) != 0 { unlink(temporary.path) }
    }

    /// FNV-1a over 64-bit words (then the tail's bytes): enough to tell a damaged file from a
    /// whole one, and eight times fewer steps than byte by byte (every start checksums the corpus).
    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01b3
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBytes { raw in
            let words = raw.count / 8
            for index in 0..<words { hash = (hash ^ raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* prime }
            for offset in (words * 8)..<raw.count { hash = (hash ^ UInt64(raw[offset])) &* prime }
        }
        return hash
    }
}
