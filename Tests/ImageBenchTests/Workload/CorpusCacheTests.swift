import Foundation
import Testing
@testable import ImageBench

@Suite("The corpus cache")
struct CorpusCacheTests {
    @Test("a second start loads every image from the cache, byte for byte; a longer corpus makes only the new ones")
    func loadsWhatItStored() throws {
        let directory = try Fixtures.temporaryDirectory("corpus-cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = CorpusCache(directory: directory)
        let first = ImageCorpus.generate(count: 8, seed: 9, cache: cache)
        #expect(first.fromCache == 0 && first.damagedInCache == 0)
        let second = ImageCorpus.generate(count: 8, seed: 9, cache: cache)
        #expect(second.fromCache == 8)
        #expect(second.images.map(\.bytes) == first.images.map(\.bytes))
        #expect(second.images.map(\.size) == first.images.map(\.size) && second.images.map(\.format) == first.images.map(\.format))
        let longer = ImageCorpus.generate(count: 10, seed: 9, cache: cache)
        #expect(longer.fromCache == 8 && longer.images.count == 10)
        // Another seed or the JPEG-only choice is another corpus.
        #expect(ImageCorpus.generate(count: 2, seed: 10, cache: cache).fromCache == 0)
        #expect(ImageCorpus.generate(count: 2, seed: 9, format: .only(.jpeg), cache: cache).fromCache == 0)
    }

    @Test("a damaged, truncated or foreign cache file is detected, made again and rewritten; never used")
    func damagedFiles() throws {
        let directory = try Fixtures.temporaryDirectory("corpus-cache-damaged")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = CorpusCache(directory: directory)
        let original = ImageCorpus.generate(count: 12, seed: 4, cache: cache)
        let folder = cache.folder(seed: 4, format: .mixed)
        func path(_ id: Int) -> String { folder.appendingPathComponent("\(id).img").path }
        var flipped = [UInt8](FileManager.default.contents(atPath: path(2))!)
        flipped[flipped.count / 2] ^= 0x40                                              // a flipped bit in the image
        _ = FileManager.default.createFile(atPath: path(2), contents: Data(flipped))
        let whole = FileManager.default.contents(atPath: path(5))!
        _ = FileManager.default.createFile(atPath: path(5), contents: whole.prefix(whole.count - 100))  // torn
        _ = FileManager.default.createFile(atPath: path(7), contents: Data("not a cache file".utf8))    // foreign
        let again = ImageCorpus.generate(count: 12, seed: 4, cache: cache)
        #expect(again.damagedInCache == 3 && again.fromCache == 9)
        #expect(again.images.map(\.bytes) == original.images.map(\.bytes), "a damaged file's bytes were used")
        let healed = ImageCorpus.generate(count: 12, seed: 4, cache: cache)
        #expect(healed.fromCache == 12 && healed.damagedInCache == 0, "the damaged files were not rewritten")
    }

    // Pinned for the encoders Debian 12 ships (libjpeg-turbo 2.1.5, libpng 1.6.39); the cache
    // folder names those versions, so other encoders get a cache of their own.
    @Test("the generator's bytes are pinned: change them and bump CorpusCache.generatorVersion, or stale caches serve old images",
          .enabled(if: CorpusCache.encoders == "jpeg2001005-png1.6.39", "pinned for Debian 12's libjpeg-turbo and libpng"))
    func generatorPinned() throws {
        let checksums = ImageCorpus.generate(count: 3, seed: 1).images.map { CorpusCache.checksum($0.bytes) }
        // If this fails, the generator changed: bump generatorVersion, then update these numbers.
        #expect(CorpusCache.generatorVersion == 1)
        #expect(checksums == [13_412_707_362_493_079_254, 1_485_109_630_639_779_953, 13_841_447_607_052_301_703], "checksums now \(checksums)")
    }

    @Test("the standard place: $XDG_CACHE_HOME/imgbench, else ~/.cache/imgbench")
    func standardPlace() {
        #expect(CorpusCache.standard(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"])?.directory.path == "/x/imgbench")
        #expect(CorpusCache.standard(environment: ["HOME": "/h"])?.directory.path == "/h/.cache/imgbench")
        #expect(CorpusCache.standard(environment: [:]) == nil)
    }
}
