/// SUBSCRIBE, a request for one or more Subscriptions (MQTT 5.0 §3.8).
public struct SubscribePacket: Equatable, Sendable {
    public var packetIdentifier: UInt16
    public var properties: Properties
    /// At least one [MQTT-3.8.3-2]; filters are checked as topic filters by the receiver, not here.
    public var subscriptions: [Subscription]

    public struct Subscription: Equatable, Sendable {
        public var topicFilter: String
        public var options: SubscriptionOptions
        public init(topicFilter: String, options: SubscriptionOptions = SubscriptionOptions()) {
            self.topicFilter = topicFilter
            self.options = options
        }
    }

    public init(packetIdentifier: UInt16, subscriptions: [Subscription], properties: Properties = Properties()) {
        self.packetIdentifier = packetIdentifier
        self.subscriptions = subscriptions
        self.properties = properties
    }

    func encodeBody(into w: inout MQTTWriter) {
        w.writeUInt16(packetIdentifier)
        properties.encode(into: &w, context: .subscribe)
        for subscription in subscriptions {
            w.writeString(subscription.topicFilter)
            w.writeByte(subscription.options.byte)
        }
    }

    static func decode(body: [UInt8]) throws(MQTTError) -> SubscribePacket {
        var r = MQTTReader(body)
        let identifier = try r.readUInt16("Packet Identifier")
        guard identifier != 0 else { throw .protocolError("SUBSCRIBE Packet Identifier 0") }
        let properties = try Properties.decode(from: &r, context: .subscribe)
        var subscriptions: [Subscription] = []
        while !r.isAtEnd {
            let filter = try r.readString("Topic Filter")
            let options = try SubscriptionOptions(byte: try r.readByte("Subscription Options"))
            subscriptions.append(Subscription(topicFilter: filter, options: options))
        }
        // MQTT 5.0 §3.8.3 [MQTT-3.8.3-2]: a SUBSCRIBE with no Payload is a Protocol Error.
        guard !subscriptions.isEmpty else { throw .protocolError("SUBSCRIBE without a Topic Filter") }
        return SubscribePacket(packetIdentifier: identifier, subscriptions: subscriptions, properties: properties)
    }
}

/// The Subscription Options byte (MQTT 5.0 §3.8.3.1).
public struct SubscriptionOptions: Equatable, Sendable {
    public var maximumQoS: QoS
    /// Do not send the subscriber's own publications back to it [MQTT-3.8.3-3].
    public var noLocal: Bool
    /// Keep the RETAIN flag messages were published with.
    public var retainAsPublished: Bool
    public var retainHandling: RetainHandling

    public enum RetainHandling: UInt8, Sendable {
        case sendOnSubscribe = 0
        case sendOnNewSubscribe = 1
        case doNotSend = 2
    }

    public init(maximumQoS: QoS = .atMostOnce, noLocal: Bool = false, retainAsPublished: Bool = false,
                retainHandling: RetainHandling = .sendOnSubscribe) {
        self.maximumQoS = maximumQoS
        self.noLocal = noLocal
        self.retainAsPublished = retainAsPublished
        self.retainHandling = retainHandling
    }

    public var byte: UInt8 {
        maximumQoS.rawValue | (noLocal ? 0x04 : 0) | (retainAsPublished ? 0x08 : 0) | retainHandling.rawValue << 4
    }

    public init(byte: UInt8) throws(MQTTError) {
        // MQTT 5.0 §3.8.3.1 [MQTT-3.8.3-5]: reserved bits 6-7 set make the SUBSCRIBE malformed.
        guard byte & 0xC0 == 0 else { throw .malformed("Subscription Options reserved bits set") }
        // Maximum QoS 3 and Retain Handling 3 are Protocol Errors.
        guard let qos = QoS(rawValue: byte & 0x03) else { throw .protocolError("Subscription Maximum QoS 3") }
        guard let handling = RetainHandling(rawValue: (byte >> 4) & 0x03) else { throw .protocolError("Retain Handling 3") }
        self.init(maximumQoS: qos, noLocal: byte & 0x04 != 0, retainAsPublished: byte & 0x08 != 0, retainHandling: handling)
    }
}
