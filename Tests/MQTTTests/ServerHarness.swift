import XCTest
@testable import MQTT

/// Drives one `MQTTServerConnection` with a hand-held clock; every action is kept.
struct ServerHarness {
    var connection: MQTTServerConnection
    var now: UInt64
    static let second: UInt64 = 1_000_000_000

    init(configuration: MQTTServerConfiguration = MQTTServerConfiguration(), now: UInt64 = 1_000 * ServerHarness.second) {
        let (connection, actions) = MQTTServerConnection.open(configuration: configuration, now: now)
        precondition(actions == [.armDeadline(now + configuration.connectTimeout)])
        self.connection = connection
        self.now = now
    }

    @discardableResult
    mutating func handle(_ event: MQTTServerEvent) -> [MQTTServerAction] { connection.handle(event, now: now) }

    @discardableResult
    mutating func receive(_ packets: MQTTPacket...) -> [MQTTServerAction] {
        handle(.received(packets.flatMap { $0.encoded() }))
    }

    @discardableResult
    mutating func receive(bytes: [UInt8]) -> [MQTTServerAction] { handle(.received(bytes)) }

    mutating func advance(seconds: Double) { now += UInt64(seconds * Double(Self.second)) }

    static func connectPacket(clientIdentifier: String = "0123456789abcdef0123456789abcdef", cleanStart: Bool = true,
                              keepAlive: UInt16 = 60, properties: Properties = Properties(),
                              will: ConnectPacket.Will? = nil) -> ConnectPacket {
        ConnectPacket(clientIdentifier: clientIdentifier, cleanStart: cleanStart, keepAlive: keepAlive, properties: properties,
                      will: will, userName: "did:plc:alice", password: Array("token".utf8))
    }

    /// A connection through CONNECT and an accepted authentication.
    static func connected(configuration: MQTTServerConfiguration = MQTTServerConfiguration(),
                          connect: ConnectPacket = connectPacket(), grant: SessionGrant = SessionGrant(),
                          file: StaticString = #filePath, line: UInt = #line) -> ServerHarness {
        var harness = ServerHarness(configuration: configuration)
        let first = harness.receive(.connect(connect))
        XCTAssertTrue(first.contains(.pauseReading), "\(first)", file: file, line: line)
        let second = harness.handle(.authenticated(.accepted(grant)))
        XCTAssertEqual(second.sent.first?.type, .connack, file: file, line: line)
        XCTAssertEqual(harness.connection.phase, .connected, file: file, line: line)
        return harness
    }
}

extension Array where Element == MQTTServerAction {
    var sent: [MQTTPacket] {
        compactMap { if case .send(let packet) = $0 { return packet } else { return nil } }
    }
    var closeCode: ReasonCode? {
        for action in self { if case .close(let code) = action { return code } }
        return nil
    }
    /// The DISCONNECT sent, if any.
    var disconnect: DisconnectPacket? {
        for packet in sent { if case .disconnect(let d) = packet { return d } }
        return nil
    }
    var connack: ConnAckPacket? {
        for packet in sent { if case .connack(let c) = packet { return c } }
        return nil
    }
    var sessionEnd: SessionEnd? {
        for action in self { if case .sessionDisconnected(let end) = action { return end } }
        return nil
    }
    var publishes: [InboundPublish] {
        compactMap { if case .publish(let p) = $0 { return p } else { return nil } }
    }
    var outboundPublishes: [PublishPacket] {
        sent.compactMap { if case .publish(let p) = $0 { return p } else { return nil } }
    }
}

func message(_ topic: String, _ payload: [UInt8] = [1, 2, 3], qos: QoS = .atLeastOnce, retain: Bool = false) -> ApplicationMessage {
    ApplicationMessage(topic: try! TopicName(topic), payload: payload, qos: qos, retain: retain)
}
