extension MQTTPacket {
    /// Bytes the encoded packet takes, without copying a PUBLISH payload to find out; `Int.max` past
    /// what a Remaining Length can express.
    var encodedSize: Int {
        guard case .publish(var packet) = self else { return encoded().count }
        let payloadCount = packet.payload.count
        packet.payload = []
        var writer = MQTTWriter()
        packet.encodeBody(into: &writer)
        let bodyCount = writer.bytes.count + payloadCount
        guard bodyCount <= VariableByteInteger.maximum else { return Int.max }
        return 1 + VariableByteInteger.size(of: bodyCount) + bodyCount
    }

    /// MQTT 5.0 §3.1.2.11.7 [MQTT-3.1.2-29]: with Request Problem Information 0 the Server sends no
    /// Reason String or User Property on packets other than PUBLISH, CONNACK and DISCONNECT.
    var isProblemInformationExempt: Bool {
        switch self {
        case .publish, .connack, .disconnect: true
        default: false
        }
    }

    /// The packet without Reason String and User Properties: what may be dropped to respect Request
    /// Problem Information, or to fit the client's Maximum Packet Size (e.g. §3.4.2.2.2 [MQTT-3.4.2-2]).
    func strippingDiagnostics() -> MQTTPacket {
        func strip(_ properties: inout Properties) {
            properties.reasonString = nil
            properties.userProperties = []
        }
        switch self {
        case .connack(var p): strip(&p.properties); return .connack(p)
        case .puback(var p): strip(&p.properties); return .puback(p)
        case .pubrec(var p): strip(&p.properties); return .pubrec(p)
        case .pubrel(var p): strip(&p.properties); return .pubrel(p)
        case .pubcomp(var p): strip(&p.properties); return .pubcomp(p)
        case .suback(var p): strip(&p.properties); return .suback(p)
        case .unsuback(var p): strip(&p.properties); return .unsuback(p)
        case .disconnect(var p): strip(&p.properties); return .disconnect(p)
        case .auth(var p): strip(&p.properties); return .auth(p)
        case .connect, .publish, .subscribe, .unsubscribe, .pingreq, .pingresp: return self
        }
    }
}
