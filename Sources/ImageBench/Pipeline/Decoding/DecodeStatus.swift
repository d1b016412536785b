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

    /// A shim's decode into a new RGBA8 buffer of `size` (left uninitialised for the shim to
    /// fill): `decode` gets the encoded bytes, the buffer and the message buffer and returns the
    /// shim's status. The pixels are kept only when it succeeded.
    static func rgba(_ bytes: [UInt8], size: PixelSize,
                     _ decode: (UnsafeBufferPointer<UInt8>, UnsafeMutableBufferPointer<UInt8>, UnsafeMutablePointer<CChar>) -> Int32)
        -> (pixels: [UInt8], status: Int32, message: [CChar]) {
        var message = messageBuffer(), status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: size.pixelCount * 4) { output, count in
            status = bytes.withUnsafeBufferPointer { source in
                message.withUnsafeMutableBufferPointer { decode(source, output, $0.baseAddress!) }
            }
            count = status == IB_IMAGE_OK.rawValue ? size.pixelCount * 4 : 0
        }
        return (pixels, status, message)
    }

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
