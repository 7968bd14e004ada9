import HTTP
import MQTT

/// A small blocking MQTT 5.0 client over the repository's own sockets and TLS (`ClientByteStream`):
/// the transport of `MLSClient`'s MQTT mode, the tests and the benchmark. One thread drives it. QoS 0
/// and 1 only; PUBLISH packets that arrive while waiting for an acknowledgement are kept, in order,
/// for `receive`; a QoS 1 PUBLISH is acknowledged when `receive` hands it out (or at once with
/// `autoAcknowledge`). Keep Alive is kept by `receive`'s waits.
public final class MQTTClient {
    public struct Options: Sendable {
        public var clientIdentifier: String
        public var userName: String?
        public var password: [UInt8]?
        public var cleanStart: Bool
        /// Seconds the server keeps the Session after the connection ends (MQTT 5.0 §3.1.2.11.2).
        public var sessionExpiryInterval: UInt32
        public var keepAlive: UInt16
        /// How many of our QoS 1 PUBLISH the server may hold unacknowledged towards us (§3.1.2.11.3).
        public var receiveMaximum: UInt16?
        public var maximumPacketSize: UInt32?

        public init(clientIdentifier: String, userName: String? = nil, password: [UInt8]? = nil, cleanStart: Bool = true,
                    sessionExpiryInterval: UInt32 = 0, keepAlive: UInt16 = 60, receiveMaximum: UInt16? = nil,
                    maximumPacketSize: UInt32? = nil) {
            self.clientIdentifier = clientIdentifier
            self.userName = userName
            self.password = password
            self.cleanStart = cleanStart
            self.sessionExpiryInterval = sessionExpiryInterval
            self.keepAlive = keepAlive
            self.receiveMaximum = receiveMaximum
            self.maximumPacketSize = maximumPacketSize
        }
    }

    /// A message the server delivered.
    public struct Message: Equatable, Sendable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: QoS
        public var retain: Bool
        public var dup: Bool
        public var packetIdentifier: UInt16?
        /// The User Properties it carried, in order (MQTT 5.0 §3.3.2.3.7).
        public var userProperties: [StringPair] = []
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// CONNACK with a failure code.
        case refused(ReasonCode, String?)
        /// The server sent DISCONNECT (with its code), or closed.
        case disconnected(ReasonCode?, String?)
        case timeout
        case protocolViolation(String)
        case transport(String)

        public var description: String {
            switch self {
            case let .refused(code, reason): "CONNACK \(code)" + (reason.map { ": \($0)" } ?? "")
            case let .disconnected(code, reason):
                "disconnected" + (code.map { " (\($0))" } ?? "") + (reason.map { ": \($0)" } ?? "")
            case .timeout: "timed out"
            case let .protocolViolation(what): "protocol violation: \(what)"
            case let .transport(what): what
            }
        }
    }

    public let connack: ConnAckPacket
    /// The server's DISCONNECT, once one arrived.
    public private(set) var serverDisconnect: DisconnectPacket?
    public var sessionPresent: Bool { connack.sessionPresent }
    public var autoAcknowledge = false

    /// Nil once closed.
    private var stream: ClientByteStream?
    private var splitter = FrameSplitter(maximumPacketSize: 1 + 4 + VariableByteInteger.maximum)
    private var nextIdentifier: UInt16 = 1
    private var inbox: [Message] = []
    private var inboxHead = 0
    /// Acknowledgements that arrived, by Packet Identifier.
    private var pubacks: [UInt16: PubAckPacket] = [:]
    private var subacks: [UInt16: SubAckPacket] = [:]
    private var unsubacks: [UInt16: UnsubAckPacket] = [:]
    private var unacknowledged: Set<UInt16> = []
    private let keepAliveSeconds: Double
    private var lastSent = ContinuousClock.now
    private var closed = false

    /// Connects and sends CONNECT; throws `.refused` on a failing CONNACK.
    public init(host: String, port: Int, tls: Bool = false, trustAnchorPEM: [UInt8]? = nil, options: Options,
                timeout: Double = 10) throws(Failure) {
        let stream: ClientByteStream
        do {
            stream = try ClientByteStream.connect(host: host, port: port, tls: tls, timeout: timeout, trustAnchorPEM: trustAnchorPEM)
        } catch {
            throw .transport("connect: \(error)")
        }
        self.stream = stream
        var properties = Properties()
        if options.sessionExpiryInterval > 0 { properties.sessionExpiryInterval = options.sessionExpiryInterval }
        properties.receiveMaximum = options.receiveMaximum
        properties.maximumPacketSize = options.maximumPacketSize
        let connect = ConnectPacket(clientIdentifier: options.clientIdentifier, cleanStart: options.cleanStart,
                                    keepAlive: options.keepAlive, properties: properties, userName: options.userName,
                                    password: options.password)
        var keepAlive = Double(options.keepAlive)
        do {
            try stream.write(MQTTPacket.connect(connect).encoded(), timeout: timeout)
        } catch {
            throw .transport("send CONNECT: \(error)")
        }
        var answer: ConnAckPacket?
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
        var pending: [MQTTPacket] = []
        while answer == nil {
            let packet = try Self.nextPacket(stream: stream, splitter: &splitter, until: deadline)
            guard case .connack(let connack) = packet else {
                pending.append(packet)
                continue
            }
            answer = connack
        }
        connack = answer!
        if let serverKeepAlive = connack.properties.serverKeepAlive { keepAlive = Double(serverKeepAlive) }
        keepAliveSeconds = keepAlive
        guard !connack.reasonCode.isFailure else { throw .refused(connack.reasonCode, connack.properties.reasonString) }
        for packet in pending { try handle(packet) }
    }

    deinit {
        if !closed { try? stream?.write(MQTTPacket.disconnect(DisconnectPacket()).encoded(), timeout: 1) }
    }

    // MARK: Operations

    /// Sends a PUBLISH; for QoS 1 returns its Packet Identifier (see `awaitPublishAck`).
    @discardableResult
    public func send(topic: String, payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = false,
                     properties: Properties = Properties()) throws(Failure) -> UInt16? {
        let identifier: UInt16? = qos == .atMostOnce ? nil : allocateIdentifier()
        if let identifier { unacknowledged.insert(identifier) }
        try write(.publish(PublishPacket(topicName: topic, payload: payload, qos: qos, packetIdentifier: identifier,
                                         retain: retain, properties: properties)))
        return identifier
    }

    /// Publishes and waits for the PUBACK (QoS 1); nil for QoS 0.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = false,
                        timeout: Double = 10) throws(Failure) -> PubAckPacket? {
        guard let identifier = try send(topic: topic, payload: payload, qos: qos, retain: retain) else { return nil }
        return try awaitPublishAck(identifier, timeout: timeout)
    }

    public func awaitPublishAck(_ identifier: UInt16, timeout: Double = 10) throws(Failure) -> PubAckPacket {
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
        while pubacks[identifier] == nil { try pump(until: deadline) }
        unacknowledged.remove(identifier)
        return pubacks.removeValue(forKey: identifier)!
    }

    /// QoS 1 PUBLISH packets sent and not yet acknowledged.
    public var unacknowledgedCount: Int { unacknowledged.count - pubacks.count }

    /// Takes every PUBACK that arrived so far (for pipelined publishing), waiting up to `timeout` for
    /// at least one when none did.
    public func takePublishAcks(timeout: Double) throws(Failure) -> [PubAckPacket] {
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
        if pubacks.isEmpty { try pump(until: deadline) }
        let taken = Array(pubacks.values)
        for ack in taken { unacknowledged.remove(ack.packetIdentifier) }
        pubacks = [:]
        return taken
    }

    public func subscribe(_ filters: [(String, SubscriptionOptions)], timeout: Double = 10) throws(Failure) -> SubAckPacket {
        let identifier = allocateIdentifier()
        try write(.subscribe(SubscribePacket(packetIdentifier: identifier, subscriptions: filters.map {
            SubscribePacket.Subscription(topicFilter: $0.0, options: $0.1)
        })))
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
        while subacks[identifier] == nil { try pump(until: deadline) }
        return subacks.removeValue(forKey: identifier)!
    }

    public func subscribe(_ filter: String, qos: QoS = .atLeastOnce, noLocal: Bool = false, timeout: Double = 10) throws(Failure) -> ReasonCode {
        let ack = try subscribe([(filter, SubscriptionOptions(maximumQoS: qos, noLocal: noLocal))], timeout: timeout)
        return ack.reasonCodes.first ?? .unspecifiedError
    }

    public func unsubscribe(_ filters: [String], timeout: Double = 10) throws(Failure) -> UnsubAckPacket {
        let identifier = allocateIdentifier()
        try write(.unsubscribe(UnsubscribePacket(packetIdentifier: identifier, topicFilters: filters)))
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
        while unsubacks[identifier] == nil { try pump(until: deadline) }
        return unsubacks.removeValue(forKey: identifier)!
    }

    /// The next delivered message, or nil when none arrives within `timeout` seconds. A QoS 1
    /// message is acknowledged as it is handed out, unless `acknowledge` is false (then call
    /// `acknowledge(_:)`, or never, to leave it unacknowledged for the Session).
    public func receive(timeout: Double, acknowledge: Bool = true) throws(Failure) -> Message? {
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
        while inboxHead == inbox.count {
            do { try pump(until: deadline) } catch .timeout { return nil }
        }
        let message = inbox[inboxHead]
        inboxHead += 1
        if inboxHead == inbox.count {
            inbox = []
            inboxHead = 0
        }
        if acknowledge, !autoAcknowledge, let identifier = message.packetIdentifier { try self.acknowledge(identifier) }
        return message
    }

    public func acknowledge(_ identifier: UInt16) throws(Failure) {
        try write(.puback(PubAckPacket(packetIdentifier: identifier)))
    }

    /// DISCONNECT (0x00 unless told otherwise; a Session Expiry Interval may be changed), then close.
    public func disconnect(reasonCode: ReasonCode = .normalDisconnection, sessionExpiryInterval: UInt32? = nil) {
        guard !closed else { return }
        var properties = Properties()
        properties.sessionExpiryInterval = sessionExpiryInterval
        try? stream?.write(MQTTPacket.disconnect(DisconnectPacket(reasonCode: reasonCode, properties: properties)).encoded(), timeout: 2)
        closed = true
        stream = nil
    }

    /// Closes the socket without DISCONNECT (as a network failure would).
    public func drop() {
        closed = true
        stream = nil
    }

    /// Raw bytes, for tests of malformed input.
    public func writeRaw(_ bytes: [UInt8]) throws(Failure) {
        guard let stream else { throw .disconnected(nil, nil) }
        do { try stream.write(bytes, timeout: 10) } catch { throw .transport("send: \(error)") }
    }

    // MARK: Plumbing

    private func allocateIdentifier() -> UInt16 {
        while true {
            let candidate = nextIdentifier
            nextIdentifier = nextIdentifier == .max ? 1 : nextIdentifier + 1
            if !unacknowledged.contains(candidate) { return candidate }
        }
    }

    private func write(_ packet: MQTTPacket) throws(Failure) {
        guard !closed, let stream else { throw .disconnected(serverDisconnect?.reasonCode, serverDisconnect?.properties.reasonString) }
        do { try stream.write(packet.encoded(), timeout: 10) } catch { throw .transport("send: \(error)") }
        lastSent = ContinuousClock.now
    }

    /// Reads and handles one packet, sending PINGREQ when the Keep Alive is due.
    private func pump(until deadline: ContinuousClock.Instant) throws(Failure) {
        guard !closed, let stream else { throw .disconnected(serverDisconnect?.reasonCode, serverDisconnect?.properties.reasonString) }
        var until = deadline
        if keepAliveSeconds > 0 {
            let ping = lastSent.advanced(by: .seconds(keepAliveSeconds / 2))
            if ping <= ContinuousClock.now {
                try write(.pingreq)
                return
            }
            until = min(deadline, ping)
        }
        let packet: MQTTPacket
        do {
            packet = try Self.nextPacket(stream: stream, splitter: &splitter, until: until)
        } catch .timeout where until < deadline {
            return
        } catch .disconnected(let code, let reason) {
            closed = true
            self.stream = nil
            throw .disconnected(code, reason)
        }
        try handle(packet)
    }

    private func handle(_ packet: MQTTPacket) throws(Failure) {
        switch packet {
        case .publish(let publish):
            inbox.append(Message(topic: publish.topicName, payload: publish.payload, qos: publish.qos, retain: publish.retain,
                                 dup: publish.dup, packetIdentifier: publish.packetIdentifier,
                                 userProperties: publish.properties.userProperties))
            if autoAcknowledge, let identifier = publish.packetIdentifier { try acknowledge(identifier) }
        case .puback(let ack): pubacks[ack.packetIdentifier] = ack
        case .suback(let ack): subacks[ack.packetIdentifier] = ack
        case .unsuback(let ack): unsubacks[ack.packetIdentifier] = ack
        case .pingresp: break
        case .disconnect(let disconnect):
            serverDisconnect = disconnect
            closed = true
            throw .disconnected(disconnect.reasonCode, disconnect.properties.reasonString)
        default:
            throw .protocolViolation("unexpected \(packet.type) from the server")
        }
    }

    private static func nextPacket(stream: ClientByteStream, splitter: inout FrameSplitter,
                                   until deadline: ContinuousClock.Instant) throws(Failure) -> MQTTPacket {
        while true {
            do {
                if let frame = try splitter.next() { return try MQTTPacket.decode(frame) }
            } catch {
                throw .protocolViolation("\(error)")
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw .timeout }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            let bytes: [UInt8]
            do { bytes = try stream.read(timeout: seconds) } catch .timeout { throw .timeout } catch {
                throw .transport("receive: \(error)")
            }
            if bytes.isEmpty { throw .disconnected(nil, "the server closed the connection") }
            splitter.append(bytes)
        }
    }
}
