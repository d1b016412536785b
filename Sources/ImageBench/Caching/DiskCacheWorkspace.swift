import Foundation

/// Gives every run of a matrix the same starting disk cache, so no strategy profits from the
/// entries an earlier cell wrote. Each run gets a private directory whose entries are hard links
/// to the user's cache directory as it was when the benchmark started (entries are never modified
/// in place, only replaced by rename, so sharing inodes is safe). What the runs wrote is linked
/// back into the user's directory when the benchmark ends (`close`), not after each run: a later
/// strategy must not find the entries an earlier one wrote (its re-downloads of entries it found
/// damaged, say), so the user's directory stays as it was until every run has started from it.
/// It is then warm for the next invocation.
final class DiskCacheWorkspace: Sendable {
    let directory: URL
    let sizeLimit: Int
    private let baseline: [String]
    private let marker: DiskCacheMarker
    /// Finished runs' directories, merged back by `close`.
    private let finished = Locked<[URL]>([])

    init(directory: URL, sizeLimit: Int = DiskCache.defaultSizeLimit) throws(DiskCache.OpenError) {
        // Opening the cache once validates the directory, clears its dead temporary files and trims.
        var cache = try DiskCache(directory: directory, sizeLimit: sizeLimit)
        // A run killed before it finished left its folder behind: its entries are whole (each was
        // renamed into place), so they are kept. Only this cache's own run folders (its id).
        let stale = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasPrefix(cache.marker.runPrefix) }
        for name in stale { Self.mergeBack(from: directory.appendingPathComponent(name), into: directory, marker: cache.marker) }
        if !stale.isEmpty { cache = try DiskCache(directory: directory, sizeLimit: sizeLimit) }
        marker = cache.marker
        self.directory = cache.directory
        self.sizeLimit = sizeLimit
        baseline = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter(DiskCache.isEntryName)
    }

    /// A cache for one run, starting from the baseline.
    func cacheForRun(_ index: Int) throws(DiskCache.OpenError) -> DiskCache {
        let runDirectory = directory.appendingPathComponent(marker.runPrefix + "\(getpid())-\(index)")
        marker.removeRunFolder(runDirectory)  // one of an earlier process with this pid
        do {
            try FileManager.default.createDirectory(at: runDirectory, withIntermediateDirectories: true)
        } catch {
            throw DiskCache.OpenError(description: "cannot create \(runDirectory.path): \(error.localizedDescription)")
        }
        for name in baseline {
            _ = link(directory.appendingPathComponent(name).path, runDirectory.appendingPathComponent(name).path)
        }
        return try DiskCache(directory: runDirectory, sizeLimit: sizeLimit)
    }

    /// A run is over; what it wrote waits for `close`.
    func finish(_ cache: DiskCache) {
        finished.withLockedValue { $0.append(cache.directory) }
    }

    /// Links what the finished runs wrote back into the user's directory and removes their
    /// directories (a process killed first leaves them to the next `init`, which does the same).
    func close() {
        let directories = finished.withLockedValue { finished in
            defer { finished.removeAll() }
            return finished
        }
        for runDirectory in directories { Self.mergeBack(from: runDirectory, into: directory, marker: marker) }
    }

    private static func mergeBack(from runDirectory: URL, into directory: URL, marker: DiskCacheMarker) {
        let manager = FileManager.default
        let names = ((try? manager.contentsOfDirectory(atPath: runDirectory.path)) ?? []).filter(DiskCache.isEntryName)
        for name in names {
            let source = runDirectory.appendingPathComponent(name).path
            let target = directory.appendingPathComponent(name).path
            if let a = try? manager.attributesOfItem(atPath: source)[.systemFileNumber] as? Int,
               let b = try? manager.attributesOfItem(atPath: target)[.systemFileNumber] as? Int, a == b { continue }
            // Link under a temporary name, then rename over: the user's entry is replaced atomically.
            let temporary = directory.appendingPathComponent(marker.temporaryPrefix + "merge-\(getpid())-\(name)").path
            unlink(temporary)
            if link(source, temporary) == 0 && rename(temporary, target) != 0 { unlink(temporary) }
        }
        marker.removeRunFolder(runDirectory)
    }
}
