/// An Application Message (MQTT 5.0 §1.2): a Topic Name, a payload, a QoS, the RETAIN flag and the
/// properties that travel with it from publisher to subscribers (§3.3.2.3).
public struct ApplicationMessage: Equatable, Sendable {
    public var topic: TopicName
    public var payload: [UInt8]
    public var qos: QoS
    public var retain: Bool
    public var properties: MessageProperties

    public init(topic: TopicName, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false,
                properties: MessageProperties = MessageProperties()) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
    }
}

/// The PUBLISH properties a Server forwards unaltered (MQTT 5.0 §3.3.2.3.2–§3.3.2.3.9); Topic Alias and
/// Subscription Identifier belong to one hop and are not part of the message.
public struct MessageProperties: Equatable, Sendable {
    public var payloadFormat: PayloadFormat?
    /// Seconds left to live; the service lowers it by the time the message waited [MQTT-3.3.2-6].
    public var messageExpiryInterval: UInt32?
    public var contentType: String?
    public var responseTopic: TopicName?
    public var correlationData: [UInt8]?
    /// In order [MQTT-3.3.2-18].
    public var userProperties: [StringPair]

    public init(payloadFormat: PayloadFormat? = nil, messageExpiryInterval: UInt32? = nil, contentType: String? = nil,
                responseTopic: TopicName? = nil, correlationData: [UInt8]? = nil, userProperties: [StringPair] = []) {
        self.payloadFormat = payloadFormat
        self.messageExpiryInterval = messageExpiryInterval
        self.contentType = contentType
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.userProperties = userProperties
    }

    /// Takes the message properties from a PUBLISH or Will property list; a Response Topic must be a
    /// valid Topic Name without wildcards [MQTT-3.3.2-14].
    init(from properties: Properties) throws(TopicError) {
        self.init(payloadFormat: properties.payloadFormatIndicator, messageExpiryInterval: properties.messageExpiryInterval,
                  contentType: properties.contentType, responseTopic: try properties.responseTopic.map { (s: String) throws(TopicError) in try TopicName(s) },
                  correlationData: properties.correlationData, userProperties: properties.userProperties)
    }

    var packetProperties: Properties {
        var properties = Properties()
        properties.payloadFormatIndicator = payloadFormat
        properties.messageExpiryInterval = messageExpiryInterval
        properties.contentType = contentType
        properties.responseTopic = responseTopic?.value
        properties.correlationData = correlationData
        properties.userProperties = userProperties
        return properties
    }
}

/// A Will Message (MQTT 5.0 §3.1.2.5): published by the service when the connection ends other than by
/// a DISCONNECT with 0x00, after `delayInterval` seconds or when the Session ends, whichever is first.
public struct WillMessage: Equatable, Sendable {
    public var message: ApplicationMessage
    // MQTT 5.0 §3.1.3.2.2.
    public var delayInterval: UInt32

    public init(message: ApplicationMessage, delayInterval: UInt32 = 0) {
        self.message = message
        self.delayInterval = delayInterval
    }
}

/// A PUBLISH the client sent, with its topic resolved (alias applied) and checked.
public struct InboundPublish: Equatable, Sendable {
    public var message: ApplicationMessage
    /// Set for QoS 1: the service answers `.publishAccepted` or `.publishRefused` with it.
    public var packetIdentifier: UInt16?
    /// MQTT 5.0 §3.3.1.1: the client says this may be a re-delivery; the service deduplicates.
    public var dup: Bool
}

/// A message the service hands the connection for its client; `id` is the service's handle for it,
/// echoed in `.delivered`, `.acknowledged` and `.discarded`.
public struct OutboundMessage: Equatable, Sendable {
    public var id: UInt64
    public var message: ApplicationMessage

    public init(id: UInt64, message: ApplicationMessage) {
        self.id = id
        self.message = message
    }
}

/// A QoS 1 message sent to the client and not yet acknowledged, with the Packet Identifier it went
/// out with: Session State (§4.1) the service keeps, and resends on resumption [MQTT-4.4.0-1].
public struct InflightMessage: Equatable, Sendable {
    public var packetIdentifier: UInt16
    public var outbound: OutboundMessage

    public init(packetIdentifier: UInt16, outbound: OutboundMessage) {
        self.packetIdentifier = packetIdentifier
        self.outbound = outbound
    }
}
