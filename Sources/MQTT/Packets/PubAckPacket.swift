/// PUBACK, PUBREC, PUBREL and PUBCOMP share one layout (MQTT 5.0 §3.4–§3.7): Packet Identifier, Reason
/// Code and Properties, where a Success without properties may be sent as the identifier alone.
public struct PubAckPacket: Equatable, Sendable {
    public var packetIdentifier: UInt16
    public var reasonCode: ReasonCode
    public var properties: Properties

    public init(packetIdentifier: UInt16, reasonCode: ReasonCode = .success, properties: Properties = Properties()) {
        self.packetIdentifier = packetIdentifier
        self.reasonCode = reasonCode
        self.properties = properties
    }

    func encodeBody(into w: inout MQTTWriter, context: PropertyContext) {
        w.writeUInt16(packetIdentifier)
        // MQTT 5.0 §3.4.2.1: Reason Code and Property Length can be omitted for Success without
        // properties; §3.4.2.2.1: the Property Length alone may be omitted when there are none.
        if reasonCode == .success, properties.isEmpty { return }
        w.writeByte(reasonCode.rawValue)
        if properties.isEmpty { return }
        properties.encode(into: &w, context: context)
    }

    static func decode(body: [UInt8], context: PropertyContext) throws(MQTTError) -> PubAckPacket {
        var r = MQTTReader(body)
        let identifier = try r.readUInt16("Packet Identifier")
        guard identifier != 0 else { throw .protocolError("\(context.rawValue) Packet Identifier 0") }
        var packet = PubAckPacket(packetIdentifier: identifier)
        // MQTT 5.0 §3.4.2.1: Remaining Length 2 means Success.
        if r.isAtEnd { return packet }
        packet.reasonCode = ReasonCode(rawValue: try r.readByte("Reason Code"))
        let allowed = context == .puback || context == .pubrec ? ReasonCode.puback : ReasonCode.pubrel
        guard allowed.contains(packet.reasonCode) else {
            throw .malformed("\(packet.reasonCode) is not a \(context.rawValue) Reason Code")
        }
        // MQTT 5.0 §3.4.2.2.1: with a Remaining Length under 4 there is no Property Length.
        if r.isAtEnd { return packet }
        packet.properties = try Properties.decode(from: &r, context: context)
        try r.finish(context.rawValue)
        return packet
    }
}
