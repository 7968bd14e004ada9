/// A property list (MQTT 5.0 §2.2.2): every property a packet may carry, each decoded to its type.
/// Which of them a given packet may hold is checked when decoding (`PropertyIdentifier.allowedIn`).
public struct Properties: Equatable, Sendable {
    public var payloadFormatIndicator: PayloadFormat?
    public var messageExpiryInterval: UInt32?
    public var contentType: String?
    public var responseTopic: String?
    public var correlationData: [UInt8]?
    public var subscriptionIdentifiers: [Int] = []
    public var sessionExpiryInterval: UInt32?
    public var assignedClientIdentifier: String?
    public var serverKeepAlive: UInt16?
    public var authenticationMethod: String?
    public var authenticationData: [UInt8]?
    public var requestProblemInformation: Bool?
    public var willDelayInterval: UInt32?
    public var requestResponseInformation: Bool?
    public var responseInformation: String?
    public var serverReference: String?
    public var reasonString: String?
    public var receiveMaximum: UInt16?
    public var topicAliasMaximum: UInt16?
    public var topicAlias: UInt16?
    public var maximumQoS: QoS?
    public var retainAvailable: Bool?
    public var userProperties: [StringPair] = []
    public var maximumPacketSize: UInt32?
    public var wildcardSubscriptionAvailable: Bool?
    public var subscriptionIdentifierAvailable: Bool?
    public var sharedSubscriptionAvailable: Bool?

    public init() {}

    public var isEmpty: Bool { self == Properties() }

    /// The identifiers present, for checking a list against a packet.
    public var identifiers: [PropertyIdentifier] {
        var present: [PropertyIdentifier] = []
        func add(_ id: PropertyIdentifier, _ isPresent: Bool) { if isPresent { present.append(id) } }
        add(.payloadFormatIndicator, payloadFormatIndicator != nil)
        add(.messageExpiryInterval, messageExpiryInterval != nil)
        add(.contentType, contentType != nil)
        add(.responseTopic, responseTopic != nil)
        add(.correlationData, correlationData != nil)
        add(.subscriptionIdentifier, !subscriptionIdentifiers.isEmpty)
        add(.sessionExpiryInterval, sessionExpiryInterval != nil)
        add(.assignedClientIdentifier, assignedClientIdentifier != nil)
        add(.serverKeepAlive, serverKeepAlive != nil)
        add(.authenticationMethod, authenticationMethod != nil)
        add(.authenticationData, authenticationData != nil)
        add(.requestProblemInformation, requestProblemInformation != nil)
        add(.willDelayInterval, willDelayInterval != nil)
        add(.requestResponseInformation, requestResponseInformation != nil)
        add(.responseInformation, responseInformation != nil)
        add(.serverReference, serverReference != nil)
        add(.reasonString, reasonString != nil)
        add(.receiveMaximum, receiveMaximum != nil)
        add(.topicAliasMaximum, topicAliasMaximum != nil)
        add(.topicAlias, topicAlias != nil)
        add(.maximumQoS, maximumQoS != nil)
        add(.retainAvailable, retainAvailable != nil)
        add(.userProperty, !userProperties.isEmpty)
        add(.maximumPacketSize, maximumPacketSize != nil)
        add(.wildcardSubscriptionAvailable, wildcardSubscriptionAvailable != nil)
        add(.subscriptionIdentifierAvailable, subscriptionIdentifierAvailable != nil)
        add(.sharedSubscriptionAvailable, sharedSubscriptionAvailable != nil)
        return present
    }

    /// Property Length then the properties in identifier order (MQTT 5.0 §2.2.2.1); an empty list is a
    /// Property Length of zero [MQTT-2.2.2-1].
    public func encode(into writer: inout MQTTWriter, context: PropertyContext) {
        assert(identifiers.allSatisfy { $0.allowedIn.contains(context) }, "property not allowed in \(context)")
        var body = MQTTWriter()
        func byte(_ id: PropertyIdentifier, _ value: UInt8?) {
            guard let value else { return }
            body.writeByte(id.rawValue); body.writeByte(value)
        }
        func bool(_ id: PropertyIdentifier, _ value: Bool?) { byte(id, value.map { $0 ? 1 : 0 }) }
        func two(_ id: PropertyIdentifier, _ value: UInt16?) {
            guard let value else { return }
            body.writeByte(id.rawValue); body.writeUInt16(value)
        }
        func four(_ id: PropertyIdentifier, _ value: UInt32?) {
            guard let value else { return }
            body.writeByte(id.rawValue); body.writeUInt32(value)
        }
        func string(_ id: PropertyIdentifier, _ value: String?) {
            guard let value else { return }
            body.writeByte(id.rawValue); body.writeString(value)
        }
        func binary(_ id: PropertyIdentifier, _ value: [UInt8]?) {
            guard let value else { return }
            body.writeByte(id.rawValue); body.writeBinary(value)
        }
        byte(.payloadFormatIndicator, payloadFormatIndicator?.rawValue)
        four(.messageExpiryInterval, messageExpiryInterval)
        string(.contentType, contentType)
        string(.responseTopic, responseTopic)
        binary(.correlationData, correlationData)
        for identifier in subscriptionIdentifiers {
            body.writeByte(PropertyIdentifier.subscriptionIdentifier.rawValue)
            body.writeVariableByteInteger(identifier)
        }
        four(.sessionExpiryInterval, sessionExpiryInterval)
        string(.assignedClientIdentifier, assignedClientIdentifier)
        two(.serverKeepAlive, serverKeepAlive)
        string(.authenticationMethod, authenticationMethod)
        binary(.authenticationData, authenticationData)
        bool(.requestProblemInformation, requestProblemInformation)
        four(.willDelayInterval, willDelayInterval)
        bool(.requestResponseInformation, requestResponseInformation)
        string(.responseInformation, responseInformation)
        string(.serverReference, serverReference)
        string(.reasonString, reasonString)
        two(.receiveMaximum, receiveMaximum)
        two(.topicAliasMaximum, topicAliasMaximum)
        two(.topicAlias, topicAlias)
        byte(.maximumQoS, maximumQoS?.rawValue)
        bool(.retainAvailable, retainAvailable)
        for pair in userProperties {
            body.writeByte(PropertyIdentifier.userProperty.rawValue)
            body.writeStringPair(pair)
        }
        four(.maximumPacketSize, maximumPacketSize)
        bool(.wildcardSubscriptionAvailable, wildcardSubscriptionAvailable)
        bool(.subscriptionIdentifierAvailable, subscriptionIdentifierAvailable)
        bool(.sharedSubscriptionAvailable, sharedSubscriptionAvailable)
        writer.writeVariableByteInteger(body.bytes.count)
        writer.writeBytes(body.bytes)
    }
}
