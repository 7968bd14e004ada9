/// Parses frames (RFC 6455 §5.2) from a byte stream. A value type: `parse` consumes one complete
/// frame or nothing, and the caller presents the unconsumed bytes again with more appended.
public struct WebSocketFrameParser: Sendable {
    /// Largest payload accepted in one frame (1009 beyond).
    public let maxPayloadSize: Int
    /// Servers require masked frames (RFC 6455 §5.1); a client parsing server frames does not.
    public let requireMask: Bool

    public init(maxPayloadSize: Int, requireMask: Bool = true) {
        self.maxPayloadSize = maxPayloadSize
        self.requireMask = requireMask
    }

    /// One frame if `bytes` starts with a complete one, with the bytes it used; (0, nil) if more
    /// input is needed. Throws as soon as the header shows a violation, before the payload arrives.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(WebSocketProtocolError) -> (consumed: Int, frame: WebSocketFrame?) {
        guard bytes.count >= 2 else { return (0, nil) }
        let first = bytes[0], second = bytes[1]
        guard first & 0x70 == 0 else { throw .reservedBitsSet }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else { throw .reservedOpcode(first & 0x0F) }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        if requireMask, !masked { throw .unmaskedFrame }
        var length = Int(second & 0x7F)
        if opcode.isControl, !fin || length > 125 { throw .invalidControlFrame }
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return (0, nil) }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            // RFC 6455 §5.2: the minimal number of bytes MUST be used to encode the length.
            guard length >= 126 else { throw .invalidLength }
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return (0, nil) }
            guard bytes[2] & 0x80 == 0 else { throw .invalidLength }
            var value: UInt64 = 0
            for index in 2..<10 { value = value << 8 | UInt64(bytes[index]) }
            guard value > 0xFFFF else { throw .invalidLength }
            guard value <= UInt64(maxPayloadSize) else { throw .messageTooBig }
            length = Int(value)
            offset = 10
        }
        guard length <= maxPayloadSize else { throw .messageTooBig }
        let keyOffset = offset
        if masked { offset += 4 }
        guard bytes.count - offset >= length else { return (0, nil) }
        var payload = Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
        if masked {
            let key = (bytes[keyOffset], bytes[keyOffset + 1], bytes[keyOffset + 2], bytes[keyOffset + 3])
            payload.withUnsafeMutableBufferPointer { Self.unmask($0, key: key) }
        }
        return (offset + length, WebSocketFrame(fin: fin, opcode: opcode, payload: payload))
    }

    public func parse(_ bytes: [UInt8]) throws(WebSocketProtocolError) -> (consumed: Int, frame: WebSocketFrame?) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(WebSocketProtocolError) in try parse(raw) }
        }.get()
    }

    /// RFC 6455 §5.3: octet i is XORed with octet i mod 4 of the key; eight at a time where possible.
    private static func unmask(_ payload: UnsafeMutableBufferPointer<UInt8>, key: (UInt8, UInt8, UInt8, UInt8)) {
        let count = payload.count
        guard count > 0, let base = payload.baseAddress else { return }
        let word = UInt64(key.0) | UInt64(key.1) << 8 | UInt64(key.2) << 16 | UInt64(key.3) << 24
        let wide = word | word << 32
        let raw = UnsafeMutableRawPointer(base)
        var index = 0
        while index + 8 <= count {
            let value = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            raw.storeBytes(of: value ^ wide.littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        let bytes = [key.0, key.1, key.2, key.3]
        while index < count {
            base[index] ^= bytes[index & 3]
            index += 1
        }
    }
}
