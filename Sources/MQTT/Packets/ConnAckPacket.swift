/// CONNACK, the Server's answer to CONNECT (MQTT 5.0 §3.2).
public struct ConnAckPacket: Equatable, Sendable {
    // MQTT 5.0 §3.2.2.1.1: whether Session State from an earlier connection is used.
    public var sessionPresent: Bool
    public var reasonCode: ReasonCode
    public var properties: Properties

    public init(sessionPresent: Bool = false, reasonCode: ReasonCode = .success, properties: Properties = Properties()) {
        self.sessionPresent = sessionPresent
        self.reasonCode = reasonCode
        self.properties = properties
    }

    func encodeBody(into w: inout MQTTWriter) {
        w.writeByte(sessionPresent ? 1 : 0)
        w.writeByte(reasonCode.rawValue)
        properties.encode(into: &w, context: .connack)
    }

    static func decode(body: [UInt8]) throws(MQTTError) -> ConnAckPacket {
        var r = MQTTReader(body)
        let flags = try r.readByte("Connect Acknowledge Flags")
        // MQTT 5.0 §3.2.2.1 [MQTT-3.2.2-1]: bits 7-1 are reserved.
        guard flags & 0xFE == 0 else { throw .malformed("CONNACK reserved flags set") }
        let code = ReasonCode(rawValue: try r.readByte("Connect Reason Code"))
        guard ReasonCode.connack.contains(code) else { throw .malformed("\(code) is not a Connect Reason Code") }
        // MQTT 5.0 §3.2.2.1.1 [MQTT-3.2.2-6]: a non-zero Reason Code comes with Session Present 0.
        if flags == 1, code != .success { throw .protocolError("Session Present with \(code)") }
        let properties = try Properties.decode(from: &r, context: .connack)
        try r.finish("CONNACK")
        return ConnAckPacket(sessionPresent: flags == 1, reasonCode: code, properties: properties)
    }

    /// The CONNACK of MQTT 3.1.1 §3.2.2.3 with return code 0x01 (unacceptable protocol version): what an
    /// MQTT 3.x client can read when this MQTT 5.0-only Server turns it away.
    public static let mqtt311UnacceptableProtocolVersion: [UInt8] = [0x20, 0x02, 0x00, 0x01]
}
