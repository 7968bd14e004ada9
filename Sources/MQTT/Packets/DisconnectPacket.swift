/// DISCONNECT, the last packet either side sends, with why (MQTT 5.0 §3.14).
public struct DisconnectPacket: Equatable, Sendable {
    public var reasonCode: ReasonCode
    public var properties: Properties

    public init(reasonCode: ReasonCode = .normalDisconnection, properties: Properties = Properties()) {
        self.reasonCode = reasonCode
        self.properties = properties
    }

    func encodeBody(into w: inout MQTTWriter) {
        // MQTT 5.0 §3.14.2.1: Normal disconnection without properties has a Remaining Length of 0.
        if reasonCode == .normalDisconnection, properties.isEmpty { return }
        w.writeByte(reasonCode.rawValue)
        // MQTT 5.0 §3.14.2.2.1: a Remaining Length under 2 means no properties, so none are written.
        if properties.isEmpty { return }
        properties.encode(into: &w, context: .disconnect)
    }

    static func decode(body: [UInt8]) throws(MQTTError) -> DisconnectPacket {
        var r = MQTTReader(body)
        var packet = DisconnectPacket()
        // MQTT 5.0 §3.14.2.1: a Remaining Length under 1 means 0x00 Normal disconnection.
        if r.isAtEnd { return packet }
        packet.reasonCode = ReasonCode(rawValue: try r.readByte("Disconnect Reason Code"))
        guard ReasonCode.disconnect.contains(packet.reasonCode) else {
            throw .malformed("\(packet.reasonCode) is not a Disconnect Reason Code")
        }
        // MQTT 5.0 §3.14.2.2.1: under 2, no Property Length.
        if r.isAtEnd { return packet }
        packet.properties = try Properties.decode(from: &r, context: .disconnect)
        try r.finish("DISCONNECT")
        return packet
    }
}
