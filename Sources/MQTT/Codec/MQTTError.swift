/// Why a packet was refused, with the Reason Code the spec gives for it (MQTT 5.0 §4.13.1).
public enum MQTTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes cannot be parsed as the spec describes (0x81 Malformed Packet).
    case malformed(String)
    /// Parsed, but not allowed by the protocol or the state (0x82 Protocol Error).
    case protocolError(String)
    /// Larger than the Maximum Packet Size we announced (0x95 Packet too large, §3.2.2.3.6).
    case packetTooLarge(size: Int, maximum: Int)
    /// A CONNECT for another protocol or version (0x84, §3.1.2.1, §3.1.2.2); `level` lets the caller
    /// answer an MQTT 3.x client in its own CONNACK format.
    case unsupportedProtocolVersion(name: String, level: UInt8)

    public var reasonCode: ReasonCode {
        switch self {
        case .malformed: .malformedPacket
        case .protocolError: .protocolError
        case .packetTooLarge: .packetTooLarge
        case .unsupportedProtocolVersion: .unsupportedProtocolVersion
        }
    }

    public var description: String {
        switch self {
        case .malformed(let detail): "malformed packet: \(detail)"
        case .protocolError(let detail): "protocol error: \(detail)"
        case let .packetTooLarge(size, maximum): "packet of \(size) bytes exceeds the maximum of \(maximum)"
        case let .unsupportedProtocolVersion(name, level): "unsupported protocol \(name) level \(level)"
        }
    }
}
