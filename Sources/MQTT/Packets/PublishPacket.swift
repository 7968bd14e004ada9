/// PUBLISH, an Application Message in either direction (MQTT 5.0 §3.3).
public struct PublishPacket: Equatable, Sendable {
    // MQTT 5.0 §3.3.1.1: set on a re-delivery; always 0 at QoS 0 [MQTT-3.3.1-2].
    public var dup: Bool
    public var qos: QoS
    public var retain: Bool
    /// MQTT 5.0 §3.3.2.1: may be empty when a Topic Alias stands for it.
    public var topicName: String
    /// MQTT 5.0 §3.3.2.2: present exactly when QoS > 0 [MQTT-2.2.1-2].
    public var packetIdentifier: UInt16?
    public var properties: Properties
    public var payload: [UInt8]

    public init(topicName: String, payload: [UInt8], qos: QoS = .atMostOnce, packetIdentifier: UInt16? = nil,
                retain: Bool = false, dup: Bool = false, properties: Properties = Properties()) {
        self.topicName = topicName
        self.payload = payload
        self.qos = qos
        self.packetIdentifier = packetIdentifier
        self.retain = retain
        self.dup = dup
        self.properties = properties
    }

    // MQTT 5.0 §3.3.1 Figure 3-8: DUP bit 3, QoS bits 2-1, RETAIN bit 0.
    var flags: UInt8 { (dup ? 0x08 : 0) | qos.rawValue << 1 | (retain ? 0x01 : 0) }

    func encodeBody(into w: inout MQTTWriter) {
        precondition((qos == .atMostOnce) == (packetIdentifier == nil), "a Packet Identifier exactly when QoS > 0")
        w.writeString(topicName)
        if let packetIdentifier { w.writeUInt16(packetIdentifier) }
        properties.encode(into: &w, context: .publish)
        w.writeBytes(payload)
    }

    static func decode(flags: UInt8, body: [UInt8]) throws(MQTTError) -> PublishPacket {
        // MQTT 5.0 §3.3.1.2 [MQTT-3.3.1-4]: both QoS bits set is a Malformed Packet.
        guard let qos = QoS(rawValue: (flags >> 1) & 0x03) else { throw .malformed("PUBLISH with QoS 3") }
        let dup = flags & 0x08 != 0
        // MQTT 5.0 §3.3.1.1 [MQTT-3.3.1-2]: DUP must be 0 at QoS 0; the flag is invalid otherwise (§2.1.3).
        if dup, qos == .atMostOnce { throw .malformed("PUBLISH with DUP set at QoS 0") }
        var r = MQTTReader(body)
        let topic = try r.readString("Topic Name")
        var packetIdentifier: UInt16?
        if qos != .atMostOnce {
            let identifier = try r.readUInt16("Packet Identifier")
            // MQTT 5.0 §2.2.1 [MQTT-2.2.1-3]: Packet Identifiers are non-zero.
            guard identifier != 0 else { throw .protocolError("PUBLISH Packet Identifier 0") }
            packetIdentifier = identifier
        }
        let properties = try Properties.decode(from: &r, context: .publish)
        return PublishPacket(topicName: topic, payload: r.readRest(), qos: qos, packetIdentifier: packetIdentifier,
                             retain: flags & 0x01 != 0, dup: dup, properties: properties)
    }
}
