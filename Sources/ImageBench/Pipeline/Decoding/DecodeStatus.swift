import CShims

/// The C shims' status codes (`ib_image_status`) as typed errors, with the library's own message.
enum DecodeStatus {
    static func check(_ status: Int32, _ message: [CChar], format: String) throws(DecodeError) {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch ib_image_status(rawValue: UInt32(status)) {
        case IB_IMAGE_OK: return
        case IB_IMAGE_UNSUPPORTED: throw .unsupported("\(format): \(text)")
        case IB_IMAGE_NO_MEMORY: throw .corrupt("\(format): out of memory: \(text)")
        default: throw .corrupt("\(format): \(text)")
        }
    }

    /// The size a header gives, refused when empty or over the limit: before anything is allocated.
    static func checkedSize(_ info: ib_image_info, limits: DecodeLimits) throws(DecodeError) -> PixelSize {
        let size = PixelSize(width: Int(info.width), height: Int(info.height))
        guard size.pixelCount > 0 else { throw .corrupt("zero dimensions \(size)") }
        guard size.pixelCount <= limits.maxPixels else { throw .tooLarge(size, limit: limits.maxPixels) }
        return size
    }

    static func messageBuffer() -> [CChar] { [CChar](repeating: 0, count: Int(IB_ERROR_CAPACITY)) }

    /// A C shim's header facts (`ib_<format>_read_info`) and the size they promise, refused when
    /// over the limit: what every decoder does before it allocates.
    static func header(_ bytes: [UInt8], format: String, limits: DecodeLimits,
                       _ read: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<ib_image_info>?, UnsafeMutablePointer<CChar>?) -> Int32)
        throws(DecodeError) -> (info: ib_image_info, size: PixelSize) {
        var info = ib_image_info()
        var message = messageBuffer()
        let status = bytes.withUnsafeBufferPointer { read($0.baseAddress, $0.count, &info, &message) }
        try check(status, message, format: format)
        return (info, try checkedSize(info, limits: limits))
    }
}
