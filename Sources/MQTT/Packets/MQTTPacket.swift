/// Every MQTT 5.0 Control Packet (MQTT 5.0 §3). Both directions encode and decode, so the Server's
/// packets round-trip in tests and a client can reuse the codec.
public enum MQTTPacket: Equatable, Sendable {
    case connect(ConnectPacket)
    case connack(ConnAckPacket)
    case publish(PublishPacket)
    case puback(PubAckPacket)
    case pubrec(PubAckPacket)
    case pubrel(PubAckPacket)
    case pubcomp(PubAckPacket)
    case subscribe(SubscribePacket)
    case suback(SubAckPacket)
    case unsubscribe(UnsubscribePacket)
    case unsuback(UnsubAckPacket)
    case pingreq
    case pingresp
    case disconnect(DisconnectPacket)
    case auth(AuthPacket)

    public var type: PacketType {
        switch self {
        case .connect: .connect
        case .connack: .connack
        case .publish: .publish
        case .puback: .puback
        case .pubrec: .pubrec
        case .pubrel: .pubrel
        case .pubcomp: .pubcomp
        case .subscribe: .subscribe
        case .suback: .suback
        case .unsubscribe: .unsubscribe
        case .unsuback: .unsuback
        case .pingreq: .pingreq
        case .pingresp: .pingresp
        case .disconnect: .disconnect
        case .auth: .auth
        }
    }

    /// Fixed header (type, flags, Remaining Length) then the packet's Variable Header and Payload.
    public func encoded() -> [UInt8] {
        var body = MQTTWriter()
        var flags = type.requiredFlags ?? 0
        switch self {
        case .connect(let packet): packet.encodeBody(into: &body)
        case .connack(let packet): packet.encodeBody(into: &body)
        case .publish(let packet):
            flags = packet.flags
            packet.encodeBody(into: &body)
        case .puback(let packet): packet.encodeBody(into: &body, context: .puback)
        case .pubrec(let packet): packet.encodeBody(into: &body, context: .pubrec)
        case .pubrel(let packet): packet.encodeBody(into: &body, context: .pubrel)
        case .pubcomp(let packet): packet.encodeBody(into: &body, context: .pubcomp)
        case .subscribe(let packet): packet.encodeBody(into: &body)
        case .suback(let packet): packet.encodeBody(into: &body, context: .suback)
        case .unsubscribe(let packet): packet.encodeBody(into: &body)
        case .unsuback(let packet): packet.encodeBody(into: &body, context: .unsuback)
        case .pingreq, .pingresp: break
        case .disconnect(let packet): packet.encodeBody(into: &body)
        case .auth(let packet): packet.encodeBody(into: &body)
        }
        var out = MQTTWriter(capacity: body.bytes.count + 5)
        out.writeByte(type.rawValue << 4 | flags)
        out.writeVariableByteInteger(body.bytes.count)
        out.writeBytes(body.bytes)
        return out.bytes
    }

    /// Decodes one frame. Throws with the Reason Code the spec gives for what is wrong (§4.13).
    public static func decode(_ frame: MQTTFrame) throws(MQTTError) -> MQTTPacket {
        let type = try PacketType(firstByte: frame.firstByte)
        let body = frame.body
        switch type {
        case .connect: return .connect(try ConnectPacket.decode(body: body))
        case .connack: return .connack(try ConnAckPacket.decode(body: body))
        case .publish: return .publish(try PublishPacket.decode(flags: frame.flags, body: body))
        case .puback: return .puback(try PubAckPacket.decode(body: body, context: .puback))
        case .pubrec: return .pubrec(try PubAckPacket.decode(body: body, context: .pubrec))
        case .pubrel: return .pubrel(try PubAckPacket.decode(body: body, context: .pubrel))
        case .pubcomp: return .pubcomp(try PubAckPacket.decode(body: body, context: .pubcomp))
        case .subscribe: return .subscribe(try SubscribePacket.decode(body: body))
        case .suback: return .suback(try SubAckPacket.decode(body: body, context: .suback))
        case .unsubscribe: return .unsubscribe(try UnsubscribePacket.decode(body: body))
        case .unsuback: return .unsuback(try SubAckPacket.decode(body: body, context: .unsuback))
        // MQTT 5.0 §3.12.2, §3.13.2: no Variable Header, no Payload.
        case .pingreq, .pingresp:
            guard body.isEmpty else { throw .malformed("\(type) with a Remaining Length of \(body.count)") }
            return type == .pingreq ? .pingreq : .pingresp
        case .disconnect: return .disconnect(try DisconnectPacket.decode(body: body))
        case .auth: return .auth(try AuthPacket.decode(body: body))
        }
    }

    /// Decodes one whole packet from its bytes (tests and clients); trailing bytes are malformed.
    public static func decode(_ bytes: [UInt8], maximumPacketSize: Int = 1 + 4 + VariableByteInteger.maximum) throws(MQTTError) -> MQTTPacket {
        var splitter = FrameSplitter(maximumPacketSize: maximumPacketSize)
        splitter.append(bytes)
        guard let frame = try splitter.next() else { throw .malformed("truncated packet") }
        guard splitter.bufferedCount == 0 else { throw .malformed("\(splitter.bufferedCount) bytes after the packet") }
        return try decode(frame)
    }
}
