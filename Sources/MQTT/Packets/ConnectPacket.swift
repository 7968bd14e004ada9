/// CONNECT, the client's connection request (MQTT 5.0 §3.1).
public struct ConnectPacket: Equatable, Sendable {
    /// MQTT 5.0 §3.1.2.4: start a new Session (discarding any existing one) rather than resume.
    public var cleanStart: Bool
    /// MQTT 5.0 §3.1.2.10: seconds; 0 turns the mechanism off.
    public var keepAlive: UInt16
    public var properties: Properties
    /// MQTT 5.0 §3.1.3.1: may be empty, asking the Server to assign one.
    public var clientIdentifier: String
    public var will: Will?
    public var userName: String?
    public var password: [UInt8]?

    /// The Will Message (MQTT 5.0 §3.1.2.5, §3.1.3.2–§3.1.3.4).
    public struct Will: Equatable, Sendable {
        public var properties: Properties
        public var topic: String
        public var payload: [UInt8]
        public var qos: QoS
        public var retain: Bool

        public init(topic: String, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false,
                    properties: Properties = Properties()) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
            self.properties = properties
        }
    }

    public init(clientIdentifier: String, cleanStart: Bool = true, keepAlive: UInt16 = 60,
                properties: Properties = Properties(), will: Will? = nil, userName: String? = nil, password: [UInt8]? = nil) {
        self.clientIdentifier = clientIdentifier
        self.cleanStart = cleanStart
        self.keepAlive = keepAlive
        self.properties = properties
        self.will = will
        self.userName = userName
        self.password = password
    }

    // MQTT 5.0 §3.1.2.1, §3.1.2.2: the Protocol Name "MQTT" and Protocol Version 5.
    public static let protocolName = "MQTT"
    public static let protocolVersion: UInt8 = 5

    func encodeBody(into w: inout MQTTWriter) {
        w.writeString(Self.protocolName)
        w.writeByte(Self.protocolVersion)
        // MQTT 5.0 §3.1.2.3 Figure 3-4: the Connect Flags, bit 0 reserved.
        var flags: UInt8 = 0
        if cleanStart { flags |= 0x02 }
        if let will {
            flags |= 0x04 | will.qos.rawValue << 3
            if will.retain { flags |= 0x20 }
        }
        if password != nil { flags |= 0x40 }
        if userName != nil { flags |= 0x80 }
        w.writeByte(flags)
        w.writeUInt16(keepAlive)
        properties.encode(into: &w, context: .connect)
        // MQTT 5.0 §3.1.3: Client Identifier, Will Properties, Will Topic, Will Payload, User Name, Password.
        w.writeString(clientIdentifier)
        if let will {
            will.properties.encode(into: &w, context: .will)
            w.writeString(will.topic)
            w.writeBinary(will.payload)
        }
        if let userName { w.writeString(userName) }
        if let password { w.writeBinary(password) }
    }

    static func decode(body: [UInt8]) throws(MQTTError) -> ConnectPacket {
        var r = MQTTReader(body)
        let name = try r.readString("Protocol Name")
        let level = try r.readByte("Protocol Version")
        guard name == protocolName, level == protocolVersion else {
            throw .unsupportedProtocolVersion(name: name, level: level)
        }
        let flags = try r.readByte("Connect Flags")
        // MQTT 5.0 §3.1.2.3 [MQTT-3.1.2-3]: the reserved flag must be 0, else a Malformed Packet.
        guard flags & 0x01 == 0 else { throw .malformed("CONNECT reserved flag is set") }
        let willFlag = flags & 0x04 != 0
        let willQoSBits = (flags >> 3) & 0x03
        let willRetain = flags & 0x20 != 0
        // MQTT 5.0 §3.1.2.6 [MQTT-3.1.2-12]: Will QoS 3 is a Malformed Packet.
        guard let willQoS = QoS(rawValue: willQoSBits) else { throw .malformed("Will QoS 3") }
        if !willFlag {
            // MQTT 5.0 §3.1.2.6 [MQTT-3.1.2-11], §3.1.2.7 [MQTT-3.1.2-13]: no Will, so Will QoS and Retain are 0.
            guard willQoS == .atMostOnce, !willRetain else { throw .malformed("Will QoS or Will Retain set without a Will") }
        }
        let keepAlive = try r.readUInt16("Keep Alive")
        let properties = try Properties.decode(from: &r, context: .connect)
        // MQTT 5.0 §3.1.2.11.10: Authentication Data without Authentication Method is a Protocol Error.
        if properties.authenticationData != nil, properties.authenticationMethod == nil {
            throw .protocolError("Authentication Data without Authentication Method")
        }
        let clientIdentifier = try r.readString("Client Identifier")
        var will: Will?
        if willFlag {
            let willProperties = try Properties.decode(from: &r, context: .will)
            let topic = try r.readString("Will Topic")
            let payload = try r.readBinary("Will Payload")
            will = Will(topic: topic, payload: payload, qos: willQoS, retain: willRetain, properties: willProperties)
        }
        // MQTT 5.0 §3.1.2.8, §3.1.2.9: the flags say whether User Name and Password are present.
        let userName = flags & 0x80 != 0 ? try r.readString("User Name") : nil
        let password = flags & 0x40 != 0 ? try r.readBinary("Password") : nil
        try r.finish("CONNECT payload")
        return ConnectPacket(clientIdentifier: clientIdentifier, cleanStart: flags & 0x02 != 0, keepAlive: keepAlive,
                             properties: properties, will: will, userName: userName, password: password)
    }
}
