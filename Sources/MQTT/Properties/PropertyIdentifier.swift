/// The property identifiers, their data types and the packets each may appear in
/// (MQTT 5.0 §2.2.2.2 Table 2-4).
public enum PropertyIdentifier: UInt8, Sendable, CaseIterable {
    case payloadFormatIndicator = 0x01
    case messageExpiryInterval = 0x02
    case contentType = 0x03
    case responseTopic = 0x08
    case correlationData = 0x09
    case subscriptionIdentifier = 0x0B
    case sessionExpiryInterval = 0x11
    case assignedClientIdentifier = 0x12
    case serverKeepAlive = 0x13
    case authenticationMethod = 0x15
    case authenticationData = 0x16
    case requestProblemInformation = 0x17
    case willDelayInterval = 0x18
    case requestResponseInformation = 0x19
    case responseInformation = 0x1A
    case serverReference = 0x1C
    case reasonString = 0x1F
    case receiveMaximum = 0x21
    case topicAliasMaximum = 0x22
    case topicAlias = 0x23
    case maximumQoS = 0x24
    case retainAvailable = 0x25
    case userProperty = 0x26
    case maximumPacketSize = 0x27
    case wildcardSubscriptionAvailable = 0x28
    case subscriptionIdentifierAvailable = 0x29
    case sharedSubscriptionAvailable = 0x2A

    public enum DataType: Sendable {
        case byte, twoByteInteger, fourByteInteger, variableByteInteger, string, binary, stringPair
    }

    public var dataType: DataType {
        switch self {
        case .payloadFormatIndicator, .requestProblemInformation, .requestResponseInformation, .maximumQoS,
             .retainAvailable, .wildcardSubscriptionAvailable, .subscriptionIdentifierAvailable,
             .sharedSubscriptionAvailable: .byte
        case .serverKeepAlive, .receiveMaximum, .topicAliasMaximum, .topicAlias: .twoByteInteger
        case .messageExpiryInterval, .sessionExpiryInterval, .willDelayInterval, .maximumPacketSize: .fourByteInteger
        case .subscriptionIdentifier: .variableByteInteger
        case .contentType, .responseTopic, .assignedClientIdentifier, .authenticationMethod, .responseInformation,
             .serverReference, .reasonString: .string
        case .correlationData, .authenticationData: .binary
        case .userProperty: .stringPair
        }
    }

    /// The packets (and Will Properties) the property may appear in; elsewhere it is a Malformed Packet.
    public var allowedIn: Set<PropertyContext> {
        switch self {
        case .payloadFormatIndicator, .messageExpiryInterval, .contentType, .responseTopic, .correlationData:
            [.publish, .will]
        case .subscriptionIdentifier: [.publish, .subscribe]
        case .sessionExpiryInterval: [.connect, .connack, .disconnect]
        case .assignedClientIdentifier, .serverKeepAlive, .responseInformation, .maximumQoS, .retainAvailable,
             .wildcardSubscriptionAvailable, .subscriptionIdentifierAvailable, .sharedSubscriptionAvailable:
            [.connack]
        case .authenticationMethod, .authenticationData: [.connect, .connack, .auth]
        case .requestProblemInformation, .requestResponseInformation: [.connect]
        case .willDelayInterval: [.will]
        case .serverReference: [.connack, .disconnect]
        case .reasonString:
            [.connack, .puback, .pubrec, .pubrel, .pubcomp, .suback, .unsuback, .disconnect, .auth]
        case .receiveMaximum, .topicAliasMaximum, .maximumPacketSize: [.connect, .connack]
        case .topicAlias: [.publish]
        case .userProperty: Set(PropertyContext.allCases)
        }
    }

    /// Whether the property may appear more than once in `context`: User Property anywhere, and the
    /// Subscription Identifier in a PUBLISH one per matching subscription (§3.3.2.3.8); any other repeat
    /// is a Protocol Error (e.g. §3.1.2.11.2 "It is a Protocol Error to include ... more than once").
    public func mayRepeat(in context: PropertyContext) -> Bool {
        switch self {
        case .userProperty: true
        case .subscriptionIdentifier: context == .publish
        default: false
        }
    }
}
