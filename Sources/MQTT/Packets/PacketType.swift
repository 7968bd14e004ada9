/// MQTT Control Packet types (MQTT 5.0 §2.1.2 Table 2-1); 0 is reserved.
public enum PacketType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case connect = 1, connack, publish, puback, pubrec, pubrel, pubcomp, subscribe, suback
    case unsubscribe, unsuback, pingreq, pingresp, disconnect, auth

    /// The fixed header's flag bits each type requires (MQTT 5.0 §2.1.3 Table 2-2); PUBLISH carries
    /// DUP, QoS and RETAIN instead and is checked by its decoder.
    public var requiredFlags: UInt8? {
        switch self {
        case .publish: nil
        case .pubrel, .subscribe, .unsubscribe: 0b0010
        default: 0
        }
    }

    /// Reads the type from the first byte and checks its reserved flags: any other value is a
    /// Malformed Packet [MQTT-2.1.3-1].
    public init(firstByte: UInt8) throws(MQTTError) {
        guard let type = PacketType(rawValue: firstByte >> 4) else { throw .malformed("reserved packet type 0") }
        if let flags = type.requiredFlags, firstByte & 0x0F != flags {
            throw .malformed("\(type) fixed header flags 0x\(String(firstByte & 0x0F, radix: 16)) are reserved")
        }
        self = type
    }

    public var description: String {
        switch self {
        case .connect: "CONNECT"
        case .connack: "CONNACK"
        case .publish: "PUBLISH"
        case .puback: "PUBACK"
        case .pubrec: "PUBREC"
        case .pubrel: "PUBREL"
        case .pubcomp: "PUBCOMP"
        case .subscribe: "SUBSCRIBE"
        case .suback: "SUBACK"
        case .unsubscribe: "UNSUBSCRIBE"
        case .unsuback: "UNSUBACK"
        case .pingreq: "PINGREQ"
        case .pingresp: "PINGRESP"
        case .disconnect: "DISCONNECT"
        case .auth: "AUTH"
        }
    }
}
