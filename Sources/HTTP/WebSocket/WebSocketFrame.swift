/// Frame opcodes (RFC 6455 §5.2, §11.8).
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames have the high bit of the opcode set (RFC 6455 §5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One frame with its payload already unmasked.
public struct WebSocketFrame: Sendable, Equatable {
    public var fin: Bool
    public var opcode: WebSocketOpcode
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The wire form (RFC 6455 §5.2): unmasked as a server sends it, or masked with `maskingKey`
    /// as a client must.
    public func encoded(maskingKey: [UInt8]? = nil) -> [UInt8] {
        Self.encode(fin: fin, opcode: opcode, payload: payload, maskingKey: maskingKey)
    }

    public static func encode(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8], maskingKey: [UInt8]? = nil) -> [UInt8] {
        let count = payload.count
        var out: [UInt8] = []
        out.reserveCapacity(count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if count < 126 {
            out.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(count >> 8))
            out.append(UInt8(count & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: count >> shift)) }
        }
        if let key = maskingKey, key.count == 4 {
            out.append(contentsOf: key)
            for index in 0..<count { out.append(payload[index] ^ key[index & 3]) }
        } else {
            out.append(contentsOf: payload)
        }
        return out
    }

    /// A close frame: the code in network order, then the UTF-8 reason, cut to fit 125 bytes.
    public static func close(code: WebSocketCloseCode, reason: String = "") -> WebSocketFrame {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = Array(reason.utf8.prefix(123))
        // Never cut a multi-byte character in half: the peer would see invalid UTF-8.
        while !reasonBytes.isEmpty, String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
        payload.append(contentsOf: reasonBytes)
        return WebSocketFrame(opcode: .close, payload: payload)
    }
}
