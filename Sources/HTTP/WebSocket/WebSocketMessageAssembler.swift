/// What a connection acts on once frames are put together.
public enum WebSocketEvent: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame: its code (nil when it sent none) and reason.
    case close(WebSocketCloseCode?, reason: String)
}

/// Joins data frames into messages (RFC 6455 §5.4) and checks what frames alone cannot: message
/// size, continuation order, UTF-8 of text and close payloads (RFC 6455 §5.5.1, §8.1).
public struct WebSocketMessageAssembler: Sendable {
    public let maxMessageSize: Int
    private var kind: WebSocketOpcode?
    private var buffer: [UInt8] = []

    public init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// The event the frame completes, if any.
    public mutating func receive(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.closeEvent(frame.payload)
        case .continuation:
            guard let kind else { throw .unexpectedContinuation }
            try append(frame.payload)
            guard frame.fin else { return nil }
            self.kind = nil
            return try Self.message(kind, take(&buffer))
        case .text, .binary:
            // Control frames may interleave with fragments (RFC 6455 §5.4), data frames may not.
            guard kind == nil else { throw .expectedContinuation }
            if frame.fin { return try Self.message(frame.opcode, frame.payload) }
            kind = frame.opcode
            buffer = []
            try append(frame.payload)
            return nil
        }
    }

    private mutating func append(_ payload: [UInt8]) throws(WebSocketProtocolError) {
        guard payload.count <= maxMessageSize - buffer.count else { throw .messageTooBig }
        buffer.append(contentsOf: payload)
    }

    private func take(_ bytes: inout [UInt8]) -> [UInt8] {
        let taken = bytes
        bytes = []
        return taken
    }

    private static func message(_ kind: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketEvent {
        guard kind == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else { throw .invalidUTF8 }
        return .text(text)
    }

    private static func closeEvent(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketEvent {
        if payload.isEmpty { return .close(nil, reason: "") }
        guard payload.count >= 2 else { throw .invalidCloseCode }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw .invalidCloseCode }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { throw .invalidUTF8 }
        return .close(code, reason: reason)
    }
}
