/// SUBACK, one Reason Code per Topic Filter of the SUBSCRIBE, in order (MQTT 5.0 §3.9).
public struct SubAckPacket: Equatable, Sendable {
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
        properties.encode(into: &w, context: .suback)
        for code in reasonCodes { w.writeByte(code.rawValue) }
    }

    static func decode(body: [UInt8]) throws(MQTTError) -> SubAckPacket {
        var r = MQTTReader(body)
        let identifier = try r.readUInt16("Packet Identifier")
        guard identifier != 0 else { throw .protocolError("SUBACK Packet Identifier 0") }
        let properties = try Properties.decode(from: &r, context: .suback)
        let codes = r.readRest().map(ReasonCode.init(rawValue:))
        guard !codes.isEmpty else { throw .protocolError("SUBACK without a Reason Code") }
        // MQTT 5.0 §3.9.3 [MQTT-3.9.3-2]: each is one of the Subscribe Reason Codes.
        if let bad = codes.first(where: { !ReasonCode.suback.contains($0) }) {
            throw .malformed("\(bad) is not a SUBACK Reason Code")
        }
        return SubAckPacket(packetIdentifier: identifier, reasonCodes: codes, properties: properties)
    }
}
