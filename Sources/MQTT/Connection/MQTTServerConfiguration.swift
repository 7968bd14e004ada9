/// What the Server announces in CONNACK and the limits it keeps (MQTT 5.0 §3.2.2.3).
public struct MQTTServerConfiguration: Sendable {
    // MQTT 5.0 §3.2.2.3.3: QoS 1 PUBLISH packets the client may have unacknowledged; more is 0x93.
    public var receiveMaximum: UInt16 = 32
    // MQTT 5.0 §3.2.2.3.8: highest inbound Topic Alias accepted (0: none).
    public var topicAliasMaximum: UInt16 = 16
    // MQTT 5.0 §3.2.2.3.6: largest packet accepted from the client; larger is 0x95.
    public var maximumPacketSize: Int = 1 << 20
    // MQTT 5.0 §3.2.2.3.14: a client asking for no Keep Alive, or a longer one, is given this as
    // Server Keep Alive; 0 accepts whatever the client asks.
    public var maximumKeepAlive: UInt16 = 300
    // MQTT 5.0 §3.2.2.3.2: longer Session Expiry Intervals are lowered to this and announced.
    public var maximumSessionExpiryInterval: UInt32 = 7 * 24 * 3600
    /// Nanoseconds from the connection opening to CONNACK: CONNECT must arrive and authentication
    /// finish within it (MQTT 5.0 §3.1.4 step 1).
    public var connectTimeout: UInt64 = 10_000_000_000
    /// QoS 1 messages held for the client while its Receive Maximum is used up (MQTT 5.0 §4.9);
    /// beyond, new ones are discarded with `.queueFull`.
    public var maximumQueuedMessages: Int = 1000
    /// Bytes held while authentication runs and reading is paused (MQTT 5.0 §3.1.4: packets after
    /// CONNECT wait for its outcome); past it the connection is refused with 0x97 Quota exceeded.
    public var maximumBufferedBytes: Int = (1 << 20) + 65_536
    /// Topic Filters one SUBSCRIBE or UNSUBSCRIBE may hold: one of more is answered without its
    /// filters being decoded, every one refused (0x97 Quota exceeded in SUBACK, 0x83 in UNSUBACK).
    public var maximumTopicFilters: Int = 128
    /// Bytes queued for the client and not yet written; a delivery past it ends the connection with
    /// DISCONNECT 0x97 Quota exceeded (what was queued and not begun is dropped first), so a client
    /// that reads too slowly cannot make the Server hold without bound what is published meanwhile.
    /// Applied by the listener, which alone knows what the socket took.
    public var maximumUnsentBytes: Int = 32 << 20

    public init() {}
}
