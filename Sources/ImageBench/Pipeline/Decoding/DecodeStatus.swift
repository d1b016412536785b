import CShims

/// The C shims' status codes (`ib_image_status`) as typed errors, with the library's own message.
enum DecodeStatus {
    /// `needed` and `limits` explain a refusal over the budget (from `controlled`) and a stop.
    static func check(_ status: Int32, _ message: [CChar], format: String, needed: Int = 0,
                      limits: DecodeLimits = DecodeLimits()) throws(DecodeError) {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch ib_image_status(rawValue: UInt32(status)) {
        case IB_IMAGE_OK: return
        case IB_IMAGE_OVER_BUDGET: throw .overBudget(bytes: needed, limitMegabytes: limits.maxDecodeMegabytes)
        case IB_IMAGE_STOPPED: throw .stopped(limits.stop?.reason ?? .cancelled)
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

    /// Refuses a buffer of `bytes` over `--max-decode-mb`: called before allocating it.
    static func charge(_ bytes: Int, limits: DecodeLimits) throws(DecodeError) {
        guard bytes <= limits.maxDecodeBytes else {
            throw .overBudget(bytes: bytes, limitMegabytes: limits.maxDecodeMegabytes)
        }
    }

    /// Runs `body` with the C control for `limits` (its budget, and its stop as a callback), and
    /// returns what a refusal would have needed beside the result.
    static func controlled<R>(_ limits: DecodeLimits, _ body: (UnsafeMutablePointer<ib_decode_control>) -> R)
        -> (result: R, needed: Int) {
        var control = ib_decode_control()
        control.max_bytes = UInt64(limits.maxDecodeBytes)
        guard let stop = limits.stop else {
            let result = body(&control)
            return (result, Int(clamping: control.needed))
        }
        // The callback gets the stop back from its context; `withExtendedLifetime` keeps it
        // alive for the call, so the unretained reference is safe.
        control.context = Unmanaged.passUnretained(stop).toOpaque()
        control.should_stop = { context in
            Unmanaged<DecodeStop>.fromOpaque(context!).takeUnretainedValue().reason == nil ? 0 : 1
        }
        let result = withExtendedLifetime(stop) { body(&control) }
        return (result, Int(clamping: control.needed))
    }

    /// A shim's decode into a new RGBA8 buffer of `size` (left uninitialised for the shim to
    /// fill): `decode` gets the encoded bytes, the buffer, the control for `limits` and the
    /// message buffer and returns the shim's status. The pixels are kept only when it succeeded.
    /// `fullSize`: the buffer is the image's size, charged against the budget before it exists.
    static func rgba(_ bytes: [UInt8], size: PixelSize, limits: DecodeLimits, fullSize: Bool,
                     _ decode: (UnsafeBufferPointer<UInt8>, UnsafeMutableBufferPointer<UInt8>,
                                UnsafeMutablePointer<ib_decode_control>, UnsafeMutablePointer<CChar>) -> Int32)
        throws(DecodeError) -> (pixels: [UInt8], status: Int32, message: [CChar], needed: Int) {
        if fullSize { try charge(size.pixelCount * 4, limits: limits) }
        var message = messageBuffer(), status: Int32 = 0, needed = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: size.pixelCount * 4) { output, count in
            (status, needed) = controlled(limits) { control in
                bytes.withUnsafeBufferPointer { source in
                    message.withUnsafeMutableBufferPointer { decode(source, output, control, $0.baseAddress!) }
                }
            }
            count = status == IB_IMAGE_OK.rawValue ? size.pixelCount * 4 : 0
        }
        return (pixels, status, message, needed)
    }

    /// A shim's decode straight into a cell of `target` (`ib_<format>_decode_fill`): `decode` gets
    /// the encoded bytes, the cell's buffer, the report, the control for `limits` and the message
    /// buffer, and returns the shim's status. The pixels are the report's size (an image smaller
    /// than its cell is not upscaled, and keeps only the bytes it needs), and kept only when it
    /// succeeded; the caller checks the status.
    static func filled(_ bytes: [UInt8], target: PixelSize, limits: DecodeLimits,
                       _ decode: (UnsafeBufferPointer<UInt8>, UnsafeMutableBufferPointer<UInt8>, UnsafeMutablePointer<ib_decode_report>,
                                  UnsafeMutablePointer<ib_decode_control>, UnsafeMutablePointer<CChar>) -> Int32)
        -> (pixels: [UInt8], report: ib_decode_report, status: Int32, message: [CChar], needed: Int) {
        var message = messageBuffer(), report = ib_decode_report(), status: Int32 = 0, needed = 0
        let capacity = target.pixelCount * 4
        var pixels = [UInt8](unsafeUninitializedCapacity: capacity) { output, count in
            (status, needed) = controlled(limits) { control in
                bytes.withUnsafeBufferPointer { source in
                    message.withUnsafeMutableBufferPointer { decode(source, output, &report, control, $0.baseAddress!) }
                }
            }
            count = status == IB_IMAGE_OK.rawValue ? Int(report.width) * Int(report.height) * 4 : 0
        }
        if pixels.count < capacity / 2 { pixels = Array(pixels) }
        return (pixels, report, status, message, needed)
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
