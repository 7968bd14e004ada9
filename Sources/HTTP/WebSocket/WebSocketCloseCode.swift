/// A close frame status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// Reported, never sent: the peer's close frame carried no code (RFC 6455 §7.4.1).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// Reported, never sent: the connection ended without a close frame (RFC 6455 §7.4.1).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    public static let internalError = WebSocketCloseCode(rawValue: 1011)
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)

    /// Whether a peer may put this code in a close frame (RFC 6455 §7.4.1, §7.4.2; IANA registry).
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 1012...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}
