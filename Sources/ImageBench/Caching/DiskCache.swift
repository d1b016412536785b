import Foundation
import Synchronization

/// A disk cache of downloaded image bytes, as an app keeps in Caches/: one file per entry, named
/// by a 128-bit hash of the URL (never a path taken from the URL), written atomically (temporary
/// file, then rename) and verified on every read (magic, URL, length, checksum). A bad entry is
/// deleted and counted, never served, and the caller fetches the image again. Over `sizeLimit` the
/// least recently used entries are removed; recency survives between runs through file times.
///
/// One process at a time per directory: opening the cache deletes its temporary files, which only
/// a process that died mid-write leaves behind. It touches only names it made (`DiskCacheMarker`):
/// entries are regular files named by 32 hex digits, removed with unlink, never recursively.
final class DiskCache: Sendable {
    /// 256 MB by default: the whole default corpus (about 60 MB) several times over, so a warm
    /// second run finds everything.
    static let defaultSizeLimit = 256_000_000
    static let magic: [UInt8] = Array("IMGBDC1\n".utf8)

    struct OpenError: Error, CustomStringConvertible {
        let description: String
    }

    /// What the cache did, for reports.
    struct Statistics: Sendable, Equatable {
        var hits = 0
        var misses = 0
        var writes = 0
        /// Entries that failed verification and were deleted.
        var discarded = 0
        /// Entries removed to stay under the size limit.
        var evictions = 0
    }

    private struct Entry {
        var size: Int
        var lastUse: UInt64
    }

    private struct Index {
        var entries: [String: Entry] = [:]
        var totalSize = 0
        var clock: UInt64 = 0
        var statistics = Statistics()
    }

    let directory: URL
    let sizeLimit: Int
    private let index: Locked<Index>
    private let temporaryCounter = Atomic<Int>(0)
    let marker: DiskCacheMarker

    init(directory: URL, sizeLimit: Int = DiskCache.defaultSizeLimit) throws(OpenError) {
        self.directory = directory
        self.sizeLimit = sizeLimit
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw OpenError(description: "cannot create disk cache directory \(directory.path): \(error.localizedDescription)")
        }
        guard manager.isWritableFile(atPath: directory.path) else {
            throw OpenError(description: "disk cache directory \(directory.path) is not writable")
        }
        let marker = try DiskCacheMarker.open(in: directory)
        self.marker = marker
        var index = Index()
        let names = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        var found: [(name: String, size: Int, modified: Date)] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            if name.hasPrefix(marker.temporaryPrefix) {
                if DiskCacheMarker.isRegularFile(path) { unlink(path) }  // a write that never finished
                continue
            }
            guard Self.isEntryName(name), DiskCacheMarker.isRegularFile(path), let attributes = try? manager.attributesOfItem(atPath: path),
                  let size = attributes[.size] as? Int else { continue }
            found.append((name, size, attributes[.modificationDate] as? Date ?? .distantPast))
        }
        // Oldest first, so the in-memory clock continues the recency order of earlier runs.
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            index.clock += 1
            index.entries[file.name] = Entry(size: file.size, lastUse: index.clock)
            index.totalSize += file.size
        }
        // A smaller limit than last time: trim now, oldest first.
        var victims: [String] = []
        if index.totalSize > sizeLimit {
            for (name, entry) in index.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where index.totalSize > sizeLimit {
                index.entries[name] = nil
                index.totalSize -= entry.size
                index.statistics.evictions += 1
                victims.append(name)
            }
        }
        for name in victims { unlink(directory.appendingPathComponent(name).path) }
        self.index = Locked(index)
    }

    var statistics: Statistics { index.withLockedValue { $0.statistics } }
    var count: Int { index.withLockedValue { $0.entries.count } }
    var totalSize: Int { index.withLockedValue { $0.totalSize } }

    func contains(_ url: String) -> Bool {
        let name = Self.fileName(for: url)
        return index.withLockedValue { $0.entries[name] != nil }
    }

    /// The bytes stored for `url`, verified; nil on a miss or a bad entry (which is deleted).
    func data(for url: String) -> [UInt8]? {
        let name = Self.fileName(for: url)
        let known = index.withLockedValue { index -> Bool in
            guard index.entries[name] != nil else {
                index.statistics.misses += 1
                return false
            }
            index.clock += 1
            index.entries[name]!.lastUse = index.clock
            return true
        }
        guard known else { return nil }
        let path = directory.appendingPathComponent(name).path
        guard let file = FileManager.default.contents(atPath: path), let payload = Self.verify([UInt8](file), url: url) else {
            discard(name)
            return nil
        }
        index.withLockedValue { $0.statistics.hits += 1 }
        // Persist recency for the next run; failure only costs LRU accuracy.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
        return payload
    }

    /// Stores `bytes` for `url`: written to a temporary file, then renamed into place, so a reader
    /// (or a later run after a crash) sees the old entry, the new one, or none, never half of one.
    func store(_ bytes: [UInt8], for url: String) {
        let name = Self.fileName(for: url)
        let temporary = directory.appendingPathComponent(marker.temporaryPrefix + "\(getpid())-\(temporaryCounter.add(1, ordering: .relaxed).newValue)")
        let entry = Self.encode(bytes, url: url)
        // Written with open and write, not FileManager.createFile: that writes through a temporary
        // file of Foundation's own naming, which a process killed mid-write leaves behind under a
        // name the cache does not know as its own (and so never removes).
        guard Self.write(entry, to: temporary.path), rename(temporary.path, directory.appendingPathComponent(name).path) == 0 else {
            unlink(temporary.path)
            return
        }
        let evicted = index.withLockedValue { index -> [String] in
            index.totalSize += entry.count - (index.entries[name]?.size ?? 0)
            index.clock += 1
            index.entries[name] = Entry(size: entry.count, lastUse: index.clock)
            index.statistics.writes += 1
            var evicted: [String] = []
            if index.totalSize > sizeLimit {
                // Trim to 90% so that every store near the limit does not trim again.
                for (victim, old) in index.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                    guard index.totalSize > sizeLimit * 9 / 10, victim != name else { continue }
                    index.entries[victim] = nil
                    index.totalSize -= old.size
                    index.statistics.evictions += 1
                    evicted.append(victim)
                }
            }
            return evicted
        }
        for victim in evicted { unlink(directory.appendingPathComponent(victim).path) }
    }

    /// `bytes` into a new file at `path` (it must not exist); false if any of it failed.
    private static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    private func discard(_ name: String) {
        index.withLockedValue { index in
            if let entry = index.entries.removeValue(forKey: name) { index.totalSize -= entry.size }
            index.statistics.discarded += 1
            index.statistics.misses += 1
        }
        unlink(directory.appendingPathComponent(name).path)
    }

    /// Reads and verifies every entry against the URL stored in it: how a test (or a worried user)
    /// checks that nothing in the directory would be served corrupt. Returns the names of entries
    /// that fail.
    static func audit(directory: URL) -> (valid: Int, invalid: [String]) {
        var valid = 0
        var invalid: [String] = []
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter(isEntryName)
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
                invalid.append(name)
                continue
            }
            let entry = [UInt8](data)
            let urlLength = entry.count >= 12 ? Int(entry[8]) | Int(entry[9]) << 8 | Int(entry[10]) << 16 | Int(entry[11]) << 24 : -1
            guard urlLength >= 0, entry.count >= 12 + urlLength,
                  let url = String(bytes: entry[12..<12 + urlLength], encoding: .utf8),
                  fileName(for: url) == name, verify(entry, url: url) != nil else {
                invalid.append(name)
                continue
            }
            valid += 1
        }
        return (valid, invalid)
    }

    // MARK: - entry format

    /// 32 hex digits from two independent 64-bit FNV-1a hashes of the URL.
    static func fileName(for url: String) -> String {
        let first = StableHash.fnv1a(url)
        let second = StableHash.fnv1a("imgbench-disk-cache\u{0}" + url)
        return String(format: "%016llx%016llx", first, second)
    }

    static func isEntryName(_ name: String) -> Bool {
        name.count == 32 && name.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// magic · URL length (UInt32 LE) · URL · payload length (UInt64 LE) · checksum (UInt64 LE) · payload
    static func encode(_ payload: [UInt8], url: String) -> [UInt8] {
        let urlBytes = Array(url.utf8)
        var entry = magic
        entry.reserveCapacity(magic.count + 4 + urlBytes.count + 16 + payload.count)
        append(UInt64(urlBytes.count), bytes: 4, to: &entry)
        entry += urlBytes
        append(UInt64(payload.count), bytes: 8, to: &entry)
        append(checksum(payload), bytes: 8, to: &entry)
        entry += payload
        return entry
    }

    /// The payload if the entry is whole and is for `url`; nil otherwise.
    static func verify(_ entry: [UInt8], url: String) -> [UInt8]? {
        let urlBytes = Array(url.utf8)
        var offset = 0
        func read(_ count: Int) -> ArraySlice<UInt8>? {
            guard entry.count - offset >= count else { return nil }
            defer { offset += count }
            return entry[offset..<offset + count]
        }
        func integer(_ count: Int) -> UInt64? {
            read(count).map { $0.reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        }
        guard read(magic.count).map(Array.init) == magic, let urlLength = integer(4), urlLength == urlBytes.count,
              read(urlBytes.count).map(Array.init) == urlBytes, let length = integer(8), let sum = integer(8),
              UInt64(entry.count - offset) == length else { return nil }
        let payload = Array(entry[offset...])
        return checksum(payload) == sum ? payload : nil
    }

    private static func append(_ value: UInt64, bytes: Int, to entry: inout [UInt8]) {
        for shift in 0..<bytes { entry.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
    }

    /// FNV-1a (64-bit) over the payload: fast, and a flipped bit or lost byte changes it.
    static func checksum(_ payload: [UInt8]) -> UInt64 {
        payload.withUnsafeBufferPointer { buffer in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in buffer {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            return hash
        }
    }
}
