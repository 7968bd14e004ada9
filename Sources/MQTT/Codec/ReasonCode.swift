/// A one-byte result of an operation (MQTT 5.0 §2.4); below 0x80 is success, 0x80 and above failure.
public struct ReasonCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var isFailure: Bool { rawValue >= 0x80 }

    // MQTT 5.0 §2.4 Table 2-6: the shared set of values.
    public static let success = ReasonCode(rawValue: 0x00)
    public static let normalDisconnection = ReasonCode(rawValue: 0x00)
    public static let grantedQoS0 = ReasonCode(rawValue: 0x00)
    public static let grantedQoS1 = ReasonCode(rawValue: 0x01)
    public static let grantedQoS2 = ReasonCode(rawValue: 0x02)
    public static let disconnectWithWillMessage = ReasonCode(rawValue: 0x04)
    public static let noMatchingSubscribers = ReasonCode(rawValue: 0x10)
    public static let noSubscriptionExisted = ReasonCode(rawValue: 0x11)
    public static let continueAuthentication = ReasonCode(rawValue: 0x18)
    public static let reAuthenticate = ReasonCode(rawValue: 0x19)
    public static let unspecifiedError = ReasonCode(rawValue: 0x80)
    public static let malformedPacket = ReasonCode(rawValue: 0x81)
    public static let protocolError = ReasonCode(rawValue: 0x82)
    public static let implementationSpecificError = ReasonCode(rawValue: 0x83)
    public static let unsupportedProtocolVersion = ReasonCode(rawValue: 0x84)
    public static let clientIdentifierNotValid = ReasonCode(rawValue: 0x85)
    public static let badUserNameOrPassword = ReasonCode(rawValue: 0x86)
    public static let notAuthorized = ReasonCode(rawValue: 0x87)
    public static let serverUnavailable = ReasonCode(rawValue: 0x88)
    public static let serverBusy = ReasonCode(rawValue: 0x89)
    public static let banned = ReasonCode(rawValue: 0x8A)
    public static let serverShuttingDown = ReasonCode(rawValue: 0x8B)
    public static let badAuthenticationMethod = ReasonCode(rawValue: 0x8C)
    public static let keepAliveTimeout = ReasonCode(rawValue: 0x8D)
    public static let sessionTakenOver = ReasonCode(rawValue: 0x8E)
    public static let topicFilterInvalid = ReasonCode(rawValue: 0x8F)
    public static let topicNameInvalid = ReasonCode(rawValue: 0x90)
    public static let packetIdentifierInUse = ReasonCode(rawValue: 0x91)
    public static let packetIdentifierNotFound = ReasonCode(rawValue: 0x92)
    public static let receiveMaximumExceeded = ReasonCode(rawValue: 0x93)
    public static let topicAliasInvalid = ReasonCode(rawValue: 0x94)
    public static let packetTooLarge = ReasonCode(rawValue: 0x95)
    public static let messageRateTooHigh = ReasonCode(rawValue: 0x96)
    public static let quotaExceeded = ReasonCode(rawValue: 0x97)
    public static let administrativeAction = ReasonCode(rawValue: 0x98)
    public static let payloadFormatInvalid = ReasonCode(rawValue: 0x99)
    public static let retainNotSupported = ReasonCode(rawValue: 0x9A)
    public static let qosNotSupported = ReasonCode(rawValue: 0x9B)
    public static let useAnotherServer = ReasonCode(rawValue: 0x9C)
    public static let serverMoved = ReasonCode(rawValue: 0x9D)
    public static let sharedSubscriptionsNotSupported = ReasonCode(rawValue: 0x9E)
    public static let connectionRateExceeded = ReasonCode(rawValue: 0x9F)
    public static let maximumConnectTime = ReasonCode(rawValue: 0xA0)
    public static let subscriptionIdentifiersNotSupported = ReasonCode(rawValue: 0xA1)
    public static let wildcardSubscriptionsNotSupported = ReasonCode(rawValue: 0xA2)

    // MQTT 5.0 §3.2.2.2 Table 3-1: Connect Reason Codes.
    public static let connack: Set<ReasonCode> = codes(0x00, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
                                                       0x8A, 0x8C, 0x90, 0x95, 0x97, 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9F)
    // MQTT 5.0 §3.4.2.1 Table 3-4 (and §3.5.2.1 Table 3-5 for PUBREC, the same set).
    public static let puback: Set<ReasonCode> = codes(0x00, 0x10, 0x80, 0x83, 0x87, 0x90, 0x91, 0x97, 0x99)
    // MQTT 5.0 §3.6.2.1 Table 3-6 (and §3.7.2.1 Table 3-7 for PUBCOMP).
    public static let pubrel: Set<ReasonCode> = codes(0x00, 0x92)
    // MQTT 5.0 §3.9.3 Table 3-8.
    public static let suback: Set<ReasonCode> = codes(0x00, 0x01, 0x02, 0x80, 0x83, 0x87, 0x8F, 0x91, 0x97, 0x9E, 0xA1, 0xA2)
    // MQTT 5.0 §3.11.3 Table 3-9.
    public static let unsuback: Set<ReasonCode> = codes(0x00, 0x11, 0x80, 0x83, 0x87, 0x8F, 0x91)
    // MQTT 5.0 §3.14.2.1 Table 3-10.
    public static let disconnect: Set<ReasonCode> = codes(0x00, 0x04, 0x80, 0x81, 0x82, 0x83, 0x87, 0x89, 0x8B, 0x8D, 0x8E,
                                                          0x8F, 0x90, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A,
                                                          0x9B, 0x9C, 0x9D, 0x9E, 0x9F, 0xA0, 0xA1, 0xA2)
    // MQTT 5.0 §3.15.2.1 Table 3-11.
    public static let auth: Set<ReasonCode> = codes(0x00, 0x18, 0x19)

    private static func codes(_ values: UInt8...) -> Set<ReasonCode> { Set(values.map(ReasonCode.init(rawValue:))) }

    public var description: String {
        let hex = "0x" + String(rawValue, radix: 16, uppercase: true)
        return Self.names[rawValue].map { "\(hex) \($0)" } ?? hex
    }

    private static let names: [UInt8: String] = [
        0x00: "Success", 0x01: "Granted QoS 1", 0x02: "Granted QoS 2", 0x04: "Disconnect with Will Message",
        0x10: "No matching subscribers", 0x11: "No subscription existed", 0x18: "Continue authentication",
        0x19: "Re-authenticate", 0x80: "Unspecified error", 0x81: "Malformed Packet", 0x82: "Protocol Error",
        0x83: "Implementation specific error", 0x84: "Unsupported Protocol Version", 0x85: "Client Identifier not valid",
        0x86: "Bad User Name or Password", 0x87: "Not authorized", 0x88: "Server unavailable", 0x89: "Server busy",
        0x8A: "Banned", 0x8B: "Server shutting down", 0x8C: "Bad authentication method", 0x8D: "Keep Alive timeout",
        0x8E: "Session taken over", 0x8F: "Topic Filter invalid", 0x90: "Topic Name invalid",
        0x91: "Packet Identifier in use", 0x92: "Packet Identifier not found", 0x93: "Receive Maximum exceeded",
        0x94: "Topic Alias invalid", 0x95: "Packet too large", 0x96: "Message rate too high", 0x97: "Quota exceeded",
        0x98: "Administrative action", 0x99: "Payload format invalid", 0x9A: "Retain not supported",
        0x9B: "QoS not supported", 0x9C: "Use another server", 0x9D: "Server moved",
        0x9E: "Shared Subscriptions not supported", 0x9F: "Connection rate exceeded", 0xA0: "Maximum connect time",
        0xA1: "Subscription Identifiers not supported", 0xA2: "Wildcard Subscriptions not supported",
    ]
}
