import Foundation
import Testing
@testable import ImageBench

@Suite("Disk cache")
struct DiskCacheTests {
    let payload = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    @Test("stores and reads back bytes, keyed by a hash of the URL, never a path from it")
    func roundTrip() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory)
        let url = "http://example.test/../../etc/passwd?x=1"
        cache.store(payload, for: url)
        #expect(cache.data(for: url) == payload)
        #expect(cache.data(for: "http://example.test/other") == nil)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != DiskCacheMarker.fileName }
        #expect(files == [DiskCache.fileName(for: url)])
        #expect(DiskCache.isEntryName(files[0]))
        #expect(cache.statistics == DiskCache.Statistics(hits: 1, misses: 1, writes: 1, discarded: 0, evictions: 0))
        #expect(DiskCache.audit(directory: directory).valid == 1)
    }

    @Test("a flipped bit, a truncation or another URL's entry is discarded, counted and never served")
    func verification() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let urls = ["u://flip", "u://truncate", "u://swap", "u://other"]
        do {
            let cache = try DiskCache(directory: directory)
            for url in urls { cache.store(payload, for: url) }
        }
        func path(_ url: String) -> String { directory.appendingPathComponent(DiskCache.fileName(for: url)).path }
        var flipped = [UInt8](FileManager.default.contents(atPath: path("u://flip"))!)
        flipped[flipped.count - 100] ^= 0x10
        _ = FileManager.default.createFile(atPath: path("u://flip"), contents: Data(flipped))
        let whole = FileManager.default.contents(atPath: path("u://truncate"))!
        _ = FileManager.default.createFile(atPath: path("u://truncate"), contents: whole.prefix(whole.count - 7))
        // An entry for another URL under this URL's name (what a hash collision would look like).
        try FileManager.default.removeItem(atPath: path("u://swap"))
        try FileManager.default.copyItem(atPath: path("u://other"), toPath: path("u://swap"))
        #expect(DiskCache.audit(directory: directory).invalid.count == 3)

        let cache = try DiskCache(directory: directory)
        #expect(cache.data(for: "u://flip") == nil)
        #expect(cache.data(for: "u://truncate") == nil)
        #expect(cache.data(for: "u://swap") == nil)
        #expect(cache.data(for: "u://other") == payload)
        #expect(cache.statistics.discarded == 3)
        #expect(!FileManager.default.fileExists(atPath: path("u://flip")))
        #expect(DiskCache.audit(directory: directory) == (1, []))
    }

    @Test("over its size limit it removes the least recently used entries")
    func lruTrim() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entrySize = DiskCache.encode(payload, url: "u://0").count
        let cache = try DiskCache(directory: directory, sizeLimit: entrySize * 4 + 10)
        for index in 0..<4 { cache.store(payload, for: "u://\(index)") }
        #expect(cache.data(for: "u://0") != nil)  // 0 is now the most recent
        cache.store(payload, for: "u://4")        // over the limit: trims to 90%, oldest first
        #expect(cache.totalSize <= entrySize * 4 + 10)
        #expect(cache.contains("u://0"))
        #expect(cache.contains("u://4"))
        #expect(!cache.contains("u://1"))
        #expect(cache.statistics.evictions >= 1)
        // A smaller limit on the next open trims at once.
        let reopened = try DiskCache(directory: directory, sizeLimit: entrySize + 10)
        #expect(reopened.count == 1)
    }

    @Test("its own temporary files of a write that never finished are removed when the cache opens; nothing it did not make is touched")
    func deadTemporaryFiles() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = try DiskCache(directory: directory).marker
        func make(_ name: String) { _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data([1, 2, 3])) }
        make(marker.temporaryPrefix + "123-1")
        // A user's files beside the cache, and another cache's prefix: never touched.
        make(".tmp-123-1")
        make(".imgbench-tmp-00000000000000ff-1")
        let backup = directory.appendingPathComponent(".run-backup")
        try FileManager.default.createDirectory(at: backup, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: backup.appendingPathComponent("important.txt").path, contents: Data("keep".utf8))
        // A folder named like an entry is not an entry: neither counted nor removed.
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(String(repeating: "a", count: 32)), withIntermediateDirectories: true)
        let cache = try DiskCache(directory: directory, sizeLimit: 1)
        #expect(cache.count == 0)
        #expect(cache.marker == marker)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
                == [DiskCacheMarker.fileName, ".tmp-123-1", ".imgbench-tmp-00000000000000ff-1", ".run-backup", String(repeating: "a", count: 32)])
        // A workspace (which merges killed runs' folders back) leaves them alone too.
        _ = try DiskCacheWorkspace(directory: directory)
        #expect(try String(contentsOf: backup.appendingPathComponent("important.txt"), encoding: .utf8) == "keep")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(".tmp-123-1").path))
    }

    @Test("a marker that is not imgbench's is refused, naming it")
    func foreignMarker() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(DiskCacheMarker.fileName).path, contents: Data("hello".utf8))
        #expect(throws: DiskCache.OpenError.self) { try DiskCache(directory: directory) }
    }

    @Test("an unwritable directory is refused with its path")
    func unwritable() {
        #expect(throws: DiskCache.OpenError.self) { try DiskCache(directory: URL(fileURLWithPath: "/proc/imgbench-cache")) }
    }
}
