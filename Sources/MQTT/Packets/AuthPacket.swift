/// AUTH, a step of enhanced authentication (MQTT 5.0 §3.15). This Server offers no Authentication
/// Method, so it only decodes AUTH to refuse it; the encoder serves clients and tests.
public struct AuthPacket: Equatable, Sendable {
    public var reasonCode: ReasonCode
    public var properties: Properties

    public init(reasonCode: ReasonCode = .success, properties: Properties = Properties()) {
        self.reasonCode = reasonCode
        self.properties = properties
    }

    func encodeBody(into w: inout MQTTWriter) {
        // MQTT 5.0 §3.15.2.1: Success without properties has a Remaining Length of 0.
        if reasonCode == .success, properties.isEmpty { return }
        w.writeByte(reasonCode.rawValue)
        properties.encode(into: &w, context: .auth)
    }

    static func decode(body: [UInt8]) throws(MQTTError) -> AuthPacket {
        var r = MQTTReader(body)
        var packet = AuthPacket()
        if r.isAtEnd { return packet }
        packet.reasonCode = ReasonCode(rawValue: try r.readByte("Authenticate Reason Code"))
        // MQTT 5.0 §3.15.2.1 [MQTT-3.15.2-1].
        guard ReasonCode.auth.contains(packet.reasonCode) else {
            throw .malformed("\(packet.reasonCode) is not an Authenticate Reason Code")
        }
        packet.properties = try Properties.decode(from: &r, context: .auth)
        try r.finish("AUTH")
        // MQTT 5.0 §3.15.2.2.2: "It is a Protocol Error to omit the Authentication Method".
        guard packet.properties.authenticationMethod != nil else { throw .protocolError("AUTH without Authentication Method") }
        return packet
    }
}
