/// Where one load spent its time, in nanoseconds. The stages follow each other without gaps, so
/// they add up to the time from submission to delivery on the main loop.
public struct StageTimes: Sendable, Equatable, Codable {
    /// Submitted until a worker picked it up (behind the concurrency limit).
    public var queueWait: UInt64 = 0
    /// Reading and verifying the disk cache entry (or finding there is none).
    var diskRead: UInt64 = 0
    /// Request start until the response's first byte.
    public var timeToFirstByte: UInt64 = 0
    /// First byte until the last.
    public var transfer: UInt64 = 0
    /// Decoding, including decode-time scaling and the downsample to the cell's size.
    public var decode: UInt64 = 0
    /// The beautify filter.
    public var filter: UInt64 = 0
    /// Worker finished until the main loop took the result.
    public var delivery: UInt64 = 0

    public init(queueWait: UInt64 = 0, diskRead: UInt64 = 0) {
        self.queueWait = queueWait
        self.diskRead = diskRead
    }

    var total: UInt64 { queueWait + diskRead + timeToFirstByte + transfer + decode + filter + delivery }
}
