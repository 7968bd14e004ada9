/// SUBACK and UNSUBACK share one layout (MQTT 5.0 §3.9, §3.11): the Packet Identifier of the request,
/// Properties, then one Reason Code per Topic Filter of the request, in order [MQTT-3.9.3-1],
/// [MQTT-3.11.3-1].
public struct SubAckPacket: Equatable, Sendable {
    public var packetIdentifier: UInt16
    public var properties: Properties
    public var reasonCodes: [ReasonCode]

    public init(packetIdentifier: UInt16, reasonCodes: [ReasonCode], properties: Properties = Properties()) {
        self.packetIdentifier = packetIdentifier
        self.reasonCodes = reasonCodes
        self.properties = properties
    }

    func encodeBody(into w: inout MQTTWriter, context: PropertyContext) {
        w.writeUInt16(packetIdentifier)
        properties.encode(into: &w, context: context)
        for code in reasonCodes { w.writeByte(code.rawValue) }
    }

    static func decode(body: [UInt8], context: PropertyContext) throws(MQTTError) -> SubAckPacket {
        var r = MQTTReader(body)
        let identifier = try r.readUInt16("Packet Identifier")
        guard identifier != 0 else { throw .protocolError("\(context.rawValue) Packet Identifier 0") }
        let properties = try Properties.decode(from: &r, context: context)
        let codes = r.readRest().map(ReasonCode.init(rawValue:))
        guard !codes.isEmpty else { throw .protocolError("\(context.rawValue) without a Reason Code") }
        // MQTT 5.0 §3.9.3 [MQTT-3.9.3-2], §3.11.3 [MQTT-3.11.3-2]: each from the packet's own set.
        let allowed = context == .suback ? ReasonCode.suback : ReasonCode.unsuback
        if let bad = codes.first(where: { !allowed.contains($0) }) {
            throw .malformed("\(bad) is not a \(context.rawValue) Reason Code")
        }
        return SubAckPacket(packetIdentifier: identifier, reasonCodes: codes, properties: properties)
    }
}

/// UNSUBACK has SUBACK's layout with the Unsubscribe Reason Codes (MQTT 5.0 §3.11).
public typealias UnsubAckPacket = SubAckPacket
