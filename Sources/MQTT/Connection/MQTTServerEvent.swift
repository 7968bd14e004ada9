/// What happens to a connection: bytes from the client, answers from the service, time.
public enum MQTTServerEvent: Equatable, Sendable {
    /// Bytes read from the socket.
    case received([UInt8])
    /// The outcome of an `.authenticate` action.
    case authenticated(AuthenticationResult)
    /// The service took ownership of a QoS 1 PUBLISH: PUBACK 0x00 (MQTT 5.0 §4.3.2).
    case publishAccepted(packetIdentifier: UInt16)
    /// The service refused a QoS 1 PUBLISH: PUBACK with a PUBACK Reason Code (§3.4.2.1; 0x10 counts as
    /// success) and an optional Reason String.
    case publishRefused(packetIdentifier: UInt16, reasonCode: ReasonCode, reasonString: String?)
    /// One Reason Code per request of the `.subscribe` action, in order: the granted QoS (0x00/0x01)
    /// or a failure such as 0x87 Not authorized (§3.9.3).
    case subscribed(packetIdentifier: UInt16, reasonCodes: [ReasonCode])
    /// One Reason Code per filter of the `.unsubscribe` action (0x00, 0x11, 0x87, ...; §3.11.3).
    case unsubscribed(packetIdentifier: UInt16, reasonCodes: [ReasonCode])
    /// A message for this client (the service has matched it to a subscription and set its QoS to the
    /// lower of the published and granted QoS, §3.8.4).
    case deliver(OutboundMessage)
    /// The deadline of the last `.armDeadline` was reached.
    case deadlineFired
    /// The service ends the connection: e.g. 0x8E Session taken over, 0x8B Server shutting down,
    /// 0x87 Not authorized (§4.13.2).
    case disconnect(reasonCode: ReasonCode, reasonString: String?)
    /// The socket closed or failed.
    case transportClosed
}

public enum AuthenticationResult: Equatable, Sendable {
    case accepted(SessionGrant)
    /// A CONNACK Reason Code of 0x80 or more (§3.2.2.2), e.g. 0x86 Bad User Name or Password,
    /// 0x87 Not authorized, 0x85 Client Identifier not valid.
    case refused(reasonCode: ReasonCode, reasonString: String?)
}

/// How the service set up the Session for an accepted CONNECT (MQTT 5.0 §3.1.2.4, §4.1).
public struct SessionGrant: Equatable, Sendable {
    /// An existing Session was resumed (never with Clean Start 1, [MQTT-3.2.2-2]).
    public var sessionPresent: Bool
    /// Required when the client sent an empty Client Identifier [MQTT-3.1.3-6].
    public var assignedClientIdentifier: String?
    /// The resumed Session's unacknowledged QoS 1 messages, in the order first sent: resent with DUP
    /// and their original Packet Identifiers [MQTT-4.4.0-1].
    public var inflight: [InflightMessage]

    public init(sessionPresent: Bool = false, assignedClientIdentifier: String? = nil, inflight: [InflightMessage] = []) {
        self.sessionPresent = sessionPresent
        self.assignedClientIdentifier = assignedClientIdentifier
        self.inflight = inflight
    }
}
