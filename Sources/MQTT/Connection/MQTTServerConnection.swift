/// One client connection's MQTT 5.0 protocol state, as a value (events in, actions out): no sockets,
/// no clocks (time is passed in as monotonic nanoseconds), no service logic. The I/O shell feeds it
/// bytes and carries out `.send`/`.close`/`.armDeadline`; the service answers `.authenticate`,
/// `.publish`, `.subscribe` and `.unsubscribe` and hands it messages to `.deliver`.
public struct MQTTServerConnection: Sendable {
    public enum Phase: Equatable, Sendable {
        /// Nothing but CONNECT is acceptable yet [MQTT-3.1.0-1].
        case awaitingConnect
        /// CONNECT received, `.authenticate` out; later bytes wait unread (§3.1.4).
        case authenticating
        /// CONNACK 0x00 sent.
        case connected
        /// `.close` emitted; everything else is ignored.
        case closing
        /// The transport closed.
        case closed
    }

    public let configuration: MQTTServerConfiguration
    public internal(set) var phase: Phase = .awaitingConnect

    var splitter: FrameSplitter
    var now: UInt64
    /// When `.deadlineFired` means something: the connect timeout, then the Keep Alive (§3.1.2.10).
    var deadline: UInt64?
    private var armedDeadline: UInt64?
    var actions: [MQTTServerAction] = []

    // From the CONNECT.
    var request: ConnectRequest?
    var clientIdentifier = ""
    var clientReceiveMaximum = Int(UInt16.max)
    var clientMaximumPacketSize = Int.max
    var requestProblemInformation = true
    /// Seconds the Session outlives the connection: CONNECT's (capped), or the DISCONNECT's (§3.14.2.2.2).
    var sessionExpiryInterval: UInt32 = 0
    var connectSessionExpiryWasZero = true
    /// 1.5 × Keep Alive (§3.1.2.10), 0 for none.
    var keepAliveNanoseconds: UInt64 = 0
    var serverKeepAlive: UInt16?
    var sessionExpiryAnnounced: UInt32?

    // While connected.
    var window = OutboundWindow(receiveMaximum: Int(UInt16.max), queueLimit: 0)
    /// QoS 1 PUBLISH packets from the client awaiting the service's answer (the client's in-flight count, §4.9).
    var inboundAwaitingAnswer: Set<UInt16> = []
    /// SUBSCRIBE / UNSUBSCRIBE awaiting the service: the Reason Codes already known (nil: the service's).
    var pendingSubscribes: [UInt16: [ReasonCode?]] = [:]
    var pendingUnsubscribes: [UInt16: [ReasonCode?]] = [:]
    var aliases = InboundTopicAliases(maximum: 0)

    /// A new connection at `now`, and the actions to start it (the CONNECT deadline).
    public static func open(configuration: MQTTServerConfiguration = MQTTServerConfiguration(), now: UInt64) -> (MQTTServerConnection, [MQTTServerAction]) {
        var connection = MQTTServerConnection(configuration: configuration, now: now)
        connection.deadline = now &+ configuration.connectTimeout
        connection.syncDeadline()
        let actions = connection.actions
        connection.actions = []
        return (connection, actions)
    }

    private init(configuration: MQTTServerConfiguration, now: UInt64) {
        self.configuration = configuration
        self.now = now
        self.splitter = FrameSplitter(maximumPacketSize: configuration.maximumPacketSize)
    }

    /// The one entry point: the actions to carry out, in order.
    public mutating func handle(_ event: MQTTServerEvent, now: UInt64) -> [MQTTServerAction] {
        self.now = now
        actions = []
        switch event {
        case .received(let bytes): received(bytes)
        case .authenticated(let result): authenticated(result)
        case .publishAccepted(let identifier): answerPublish(identifier, reasonCode: .success, reasonString: nil)
        case let .publishRefused(identifier, code, reason): answerPublish(identifier, reasonCode: code, reasonString: reason)
        case let .subscribed(identifier, codes): answerSubscribe(identifier, codes)
        case let .unsubscribed(identifier, codes): answerUnsubscribe(identifier, codes)
        case .deliver(let outbound): deliver(outbound)
        case .deadlineFired: deadlineFired()
        case let .disconnect(code, reason): serverDisconnect(code, reason)
        case .transportClosed: transportClosed()
        }
        syncDeadline()
        let result = actions
        actions = []
        return result
    }

    /// The number of QoS 1 messages in flight to the client and waiting behind them.
    public var outboundInflightCount: Int { window.inflight.count }
    public var outboundQueuedCount: Int { window.queuedCount }

    // MARK: - Plumbing shared by the phases

    private mutating func received(_ bytes: [UInt8]) {
        guard phase == .awaitingConnect || phase == .authenticating || phase == .connected else { return }
        splitter.append(bytes)
        if phase == .awaitingConnect { readConnect() }
        switch phase {
        case .authenticating:
            // MQTT 5.0 §3.1.4: the Server "can limit reading ... if the Client sends too much data before
            // authentication is complete"; a shell that ignores `.pauseReading` is bounded here.
            if splitter.bufferedCount > configuration.maximumBufferedBytes {
                refuseConnect(.quotaExceeded, "too much data before CONNACK")
            }
        case .connected:
            processPackets()
        case .awaitingConnect, .closing, .closed:
            break
        }
    }

    private mutating func deadlineFired() {
        guard let deadline, now >= deadline else { return }
        switch phase {
        case .awaitingConnect:
            // MQTT 5.0 §3.1.4 step 1: no CONNECT in a reasonable time; nothing to answer.
            close(.maximumConnectTime)
        case .authenticating:
            refuseConnect(.serverUnavailable, "authentication did not finish in time")
        case .connected:
            // MQTT 5.0 §3.1.2.10 [MQTT-3.1.2-22]: nothing for 1.5 × Keep Alive: close as if the network
            // failed (so the Will is published), telling the client why (0x8D).
            disconnect(.keepAliveTimeout, "no packet within 1.5 times the Keep Alive")
        case .closing, .closed:
            break
        }
    }

    private mutating func serverDisconnect(_ code: ReasonCode, _ reason: String?) {
        switch phase {
        case .awaitingConnect: close(code)
        // MQTT 5.0 §3.14.0 [MQTT-3.14.0-1]: no DISCONNECT before a successful CONNACK; the CONNECT is
        // answered with the nearest Connect Reason Code instead.
        case .authenticating: refuseConnect(ReasonCode.connack.contains(code) && code.isFailure ? code : .unspecifiedError, reason)
        case .connected: disconnect(code, reason)
        case .closing, .closed: break
        }
    }

    private mutating func transportClosed() {
        if phase == .connected { endSession(keepWill: true) }
        phase = .closed
        deadline = nil
    }

    /// Queues `packet` after applying the client's Request Problem Information and Maximum Packet Size;
    /// false if even without diagnostics it is too large to send [MQTT-3.1.2-24].
    @discardableResult
    mutating func send(_ packet: MQTTPacket) -> Bool {
        var packet = packet
        if !requestProblemInformation, !packet.isProblemInformationExempt { packet = packet.strippingDiagnostics() }
        if packet.encodedSize > clientMaximumPacketSize {
            packet = packet.strippingDiagnostics()
            guard packet.encodedSize <= clientMaximumPacketSize else { return false }
        }
        actions.append(.send(packet))
        return true
    }

    /// A Reason String property, cut to what a UTF-8 Encoded String can hold.
    func reasonProperties(_ reason: String?) -> Properties {
        var properties = Properties()
        properties.reasonString = reason?.truncatedUTF8(maxBytes: 0xFFFF)
        return properties
    }

    /// Answers a CONNECT with a failing CONNACK, then closes [MQTT-3.2.2-7].
    mutating func refuseConnect(_ code: ReasonCode, _ reason: String?) {
        send(.connack(ConnAckPacket(sessionPresent: false, reasonCode: code, properties: reasonProperties(reason))))
        close(code)
    }

    /// DISCONNECT with `code` (MQTT 5.0 §4.13.1: "SHOULD send a DISCONNECT packet containing the Reason
    /// Code before closing"), the Session handed back, then close. The Will stays: the Server closed
    /// without a DISCONNECT 0x00 from the client (§3.1.2.5).
    mutating func disconnect(_ code: ReasonCode, _ reason: String?) {
        let code = ReasonCode.disconnect.contains(code) ? code : .unspecifiedError
        send(.disconnect(DisconnectPacket(reasonCode: code, properties: reasonProperties(reason))))
        endSession(keepWill: true)
        close(code)
    }

    mutating func endSession(keepWill: Bool) {
        let (inflight, queued) = window.remaining()
        actions.append(.sessionDisconnected(SessionEnd(
            clientIdentifier: clientIdentifier, sessionExpiryInterval: sessionExpiryInterval,
            will: keepWill ? request?.will : nil, inflight: inflight, queued: queued)))
    }

    mutating func close(_ code: ReasonCode) {
        actions.append(.close(code))
        phase = .closing
        deadline = nil
    }

    mutating func syncDeadline() {
        if deadline != armedDeadline {
            armedDeadline = deadline
            actions.append(.armDeadline(deadline))
        }
    }
}
