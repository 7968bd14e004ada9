/// What the I/O shell and the service must do for a connection, in order.
public enum MQTTServerAction: Equatable, Sendable {
    /// Write the packet (`packet.encoded()`); it already fits the client's Maximum Packet Size.
    case send(MQTTPacket)
    /// Write these bytes as they are: the MQTT 3.1.1 CONNACK refusing a 3.x client.
    case sendBytes([UInt8])
    /// Check the CONNECT's credentials and set up the Session; answer with `.authenticated`.
    case authenticate(ConnectRequest)
    /// A PUBLISH to process; QoS 1 ones are answered with `.publishAccepted` / `.publishRefused`.
    case publish(InboundPublish)
    /// Subscriptions to authorise and add to the Session; answer with `.subscribed`.
    case subscribe(packetIdentifier: UInt16, requests: [SubscriptionRequest])
    /// Subscriptions to remove (exact filter match, §3.10.4); answer with `.unsubscribed`.
    case unsubscribe(packetIdentifier: UInt16, topicFilters: [TopicFilter])
    /// A QoS 1 message went out with this Packet Identifier: it is in flight until `.acknowledged`.
    case delivered(messageID: UInt64, packetIdentifier: UInt16)
    /// The client acknowledged a QoS 1 message (a failure code too ends it, [MQTT-4.4.0-2]).
    case acknowledged(messageID: UInt64, packetIdentifier: UInt16, reasonCode: ReasonCode)
    /// A message that will not be sent on this connection, and why.
    case discarded(messageID: UInt64, reason: DiscardReason)
    /// Fire `.deadlineFired` at this monotonic time (nanoseconds); nil cancels. Replaces the last one.
    case armDeadline(UInt64?)
    /// Stop reading the socket until `.resumeReading` (while authentication runs, §3.1.4).
    case pauseReading
    case resumeReading
    /// The connection's Session is disconnected: keep it for `sessionExpiryInterval` seconds (0: end it
    /// now) and publish the Will, if any, after its delay or when the Session ends (§3.1.2.5).
    case sessionDisconnected(SessionEnd)
    /// Close the socket once everything sent before has been written. The code is why: the one sent to
    /// the client, or received in its DISCONNECT.
    case close(ReasonCode)
}

public enum DiscardReason: Equatable, Sendable {
    // MQTT 5.0 §3.1.2.11.4 [MQTT-3.1.2-25]: too large for the client; treat as delivered.
    case packetTooLarge
    /// More than `maximumQueuedMessages` waiting for the client's Receive Maximum.
    case queueFull
    /// Not connected (yet, or any more).
    case notConnected
    // MQTT 5.0 §3.3.2.3.3 [MQTT-3.3.2-5]: its Message Expiry Interval passed while it waited for the
    // client's Receive Maximum.
    case expired
}

/// What CONNECT asked for, for the service to authenticate and to set up the Session (MQTT 5.0 §3.1).
public struct ConnectRequest: Equatable, Sendable {
    /// Empty when the client asks the Server to assign one (§3.1.3.1).
    public var clientIdentifier: String
    public var userName: String?
    public var password: [UInt8]?
    // MQTT 5.0 §3.1.2.4.
    public var cleanStart: Bool
    /// Seconds, after the Server's cap (§3.1.2.11.2); 0 ends the Session with the connection.
    public var sessionExpiryInterval: UInt32
    /// Seconds in force (the Server Keep Alive if one is sent); 0: none.
    public var keepAlive: UInt16
    public var will: WillMessage?
    public var userProperties: [StringPair]
}

/// One filter of a SUBSCRIBE, valid and not shared.
public struct SubscriptionRequest: Equatable, Sendable {
    public var topicFilter: TopicFilter
    /// The requested Maximum QoS may be 2: grant at most 1 (§3.2.2.3.4 [MQTT-3.2.2-10]).
    public var options: SubscriptionOptions
}

/// The Session State the connection leaves to the service (MQTT 5.0 §4.1).
public struct SessionEnd: Equatable, Sendable {
    public var clientIdentifier: String
    public var sessionExpiryInterval: UInt32
    /// Nil after a DISCONNECT with 0x00 Normal disconnection [MQTT-3.1.2-10], or when CONNECT had none.
    public var will: WillMessage?
    /// Sent and not acknowledged (on this connection or a resumed one), in the order first sent.
    public var inflight: [InflightMessage]
    /// Never sent: waiting for the client's Receive Maximum when the connection ended.
    public var queued: [OutboundMessage]
}
