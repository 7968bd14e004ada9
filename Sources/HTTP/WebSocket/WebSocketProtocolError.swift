/// A violation of RFC 6455 by the peer; each maps to the close code the server answers with.
public enum WebSocketProtocolError: Error, Sendable, Equatable {
    /// RSV1-3 set without a negotiated extension (RFC 6455 §5.2).
    case reservedBitsSet
    /// An opcode RFC 6455 §5.2 reserves.
    case reservedOpcode(UInt8)
    /// A client frame without a masking key (RFC 6455 §5.1).
    case unmaskedFrame
    /// A control frame that is fragmented or longer than 125 bytes (RFC 6455 §5.5).
    case invalidControlFrame
    /// A payload length not in its minimal form, or with the most significant bit set (RFC 6455 §5.2).
    case invalidLength
    /// A frame or message longer than the configured limit (1009).
    case messageTooBig
    /// A continuation frame with no message to continue, or a new message inside a fragmented one (RFC 6455 §5.4).
    case unexpectedContinuation
    case expectedContinuation
    /// Text (or a close reason) that is not UTF-8 (1007, RFC 6455 §8.1).
    case invalidUTF8
    /// A close frame with a one-byte payload or a code that may not be sent (RFC 6455 §5.5.1, §7.4).
    case invalidCloseCode

    public var closeCode: WebSocketCloseCode {
        switch self {
        case .messageTooBig: .messageTooBig
        case .invalidUTF8: .invalidFramePayloadData
        default: .protocolError
        }
    }
}
