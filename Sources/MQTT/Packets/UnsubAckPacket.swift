/// UNSUBACK, one Reason Code per Topic Filter of the UNSUBSCRIBE, in order (MQTT 5.0 §3.11).
public struct UnsubAckPacket: Equatable, Sendable {
    public var packetIdentifier: UInt16
    public var properties: Properties
    public var reasonCodes: [ReasonCode]

    public init(packetIdentifier: UInt16, reasonCodes: [ReasonCode], properties: Properties = Properties()) {
        self.packetIdentifier = packetIdentifier
        self.reasonCodes = reasonCodes
        self.properties = properties
    }

    func encodeBody(into w: inout MQTTWriter) {
        w.writeUInt16(packetIdentifier)
        properties.encode(into: &w, context: .unsuback)
        for code in reasonCodes { w.writeByte(code.rawValue) }
    }

    static func decode(body: [UInt8]) throws(MQTTError) -> UnsubAckPacket {
        var r = MQTTReader(body)
        let identifier = try r.readUInt16("Packet Identifier")
        guard identifier != 0 else { throw .protocolError("UNSUBACK Packet Identifier 0") }
        let properties = try Properties.decode(from: &r, context: .unsuback)
        let codes = r.readRest().map(ReasonCode.init(rawValue:))
        guard !codes.isEmpty else { throw .protocolError("UNSUBACK without a Reason Code") }
        // MQTT 5.0 §3.11.3 [MQTT-3.11.3-2].
        if let bad = codes.first(where: { !ReasonCode.unsuback.contains($0) }) {
            throw .malformed("\(bad) is not an UNSUBACK Reason Code")
        }
        return UnsubAckPacket(packetIdentifier: identifier, reasonCodes: codes, properties: properties)
    }
}
