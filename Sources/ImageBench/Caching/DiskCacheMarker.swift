import Foundation

/// What makes a directory a disk cache, and which of its names are the cache's own. A user may
/// point `--disk-cache` at a folder holding other things (`.run-backup/`, `.tmp-notes`): the cache
/// deletes and recurses into nothing it did not make. Its marker file holds a random id; its
/// temporary files and per-run folders carry that id in their names, so the prefixes of another
/// cache, another tool or a user never match; folders are emptied of the cache's own names and
/// then removed with rmdir, never recursively.
struct DiskCacheMarker: Sendable, Equatable {
    static let fileName = ".imgbench-disk-cache"
    /// 16 lowercase hex digits.
    let id: String

    /// The directory's marker, written (with a fresh id) when it has none. The id is written to a
    /// file of its own and linked into place, so a marker is never seen half-written, and two
    /// processes opening a new cache at once agree on the first one's id (link fails with EEXIST
    /// for the second, which reads the first's).
    static func open(in directory: URL) throws(DiskCache.OpenError) -> DiskCacheMarker {
        let path = directory.appendingPathComponent(fileName).path
        if let marker = try read(path) { return marker }
        let id = String(format: "%016llx", UInt64.random(in: 1...UInt64.max))
        let temporary = directory.appendingPathComponent(".imgbench-tmp-\(id)-marker").path
        let descriptor = Foundation.open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw DiskCache.OpenError(description: "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array((id + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        defer { unlink(temporary) }
        guard written == bytes.count else { throw DiskCache.OpenError(description: "cannot write \(temporary): a short write") }
        if link(temporary, path) == 0 { return DiskCacheMarker(id: id) }
        guard errno == EEXIST, let marker = try read(path) else {
            throw DiskCache.OpenError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return marker
    }

    /// The marker at `path`: nil when there is none; an error when something else is there (a
    /// folder, an unreadable file, text that is no id), which the cache will not take for its own.
    private static func read(_ path: String) throws(DiskCache.OpenError) -> DiskCacheMarker? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw DiskCache.OpenError(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
            return nil
        }
        guard (status.st_mode & S_IFMT) == S_IFREG, let data = FileManager.default.contents(atPath: path), data.count <= 64 else {
            throw DiskCache.OpenError(description: "\(path) is not an imgbench disk-cache marker: remove it or choose another --disk-cache")
        }
        let id = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard id.count == 16, id.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw DiskCache.OpenError(description: "\(path) is not an imgbench disk-cache marker: remove it or choose another --disk-cache")
        }
        return DiskCacheMarker(id: id)
    }

    /// A temporary file's name prefix: a write in progress, renamed into place when whole.
    var temporaryPrefix: String { ".imgbench-tmp-\(id)-" }
    /// A run's private folder's name prefix (`DiskCacheWorkspace`).
    var runPrefix: String { ".imgbench-run-\(id)-" }

    /// True for a regular file (not a folder, not a link to one) at `path`.
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Empties a folder this cache made of the names it puts there (entries, its temporary files,
    /// its marker), then removes it if nothing else is left. Never recursive.
    func removeRunFolder(_ folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where DiskCache.isEntryName(name) || name == Self.fileName || name.hasPrefix(".imgbench-tmp-") {
            let path = folder.appendingPathComponent(name).path
            if Self.isRegularFile(path) { unlink(path) }
        }
        rmdir(folder.path)
    }
}
