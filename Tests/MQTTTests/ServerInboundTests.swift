import XCTest
@testable import MQTT

final class ServerInboundTests: XCTestCase {
    private func publish(_ topic: String, qos: QoS = .atLeastOnce, id: UInt16? = 1, payload: [UInt8] = [1],
                         properties: Properties = Properties(), retain: Bool = false, dup: Bool = false) -> MQTTPacket {
        .publish(PublishPacket(topicName: topic, payload: payload, qos: qos, packetIdentifier: qos == .atMostOnce ? nil : id,
                               retain: retain, dup: dup, properties: properties))
    }

    private func assertDisconnected(_ actions: [MQTTServerAction], _ code: ReasonCode, willKept: Bool = true,
                                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actions.disconnect?.reasonCode, code, "\(actions)", file: file, line: line)
        XCTAssertEqual(actions.closeCode, code, file: file, line: line)
        XCTAssertNotNil(actions.sessionEnd, file: file, line: line)
    }

    func testQoS0Publish_GoesToTheService_WithoutPubAck() throws {
        var h = ServerHarness.connected()
        var properties = Properties()
        properties.contentType = "application/mls-message"
        properties.userProperties = [StringPair("a", "1"), StringPair("a", "2")]
        properties.messageExpiryInterval = 30
        properties.correlationData = [9]
        properties.responseTopic = "relay/u/reply"
        let actions = h.receive(publish("relay/g/ab/m", qos: .atMostOnce, properties: properties, retain: true))
        let expected = InboundPublish(
            message: ApplicationMessage(topic: try TopicName("relay/g/ab/m"), payload: [1], qos: .atMostOnce, retain: true,
                                        properties: MessageProperties(messageExpiryInterval: 30, contentType: "application/mls-message",
                                                                      responseTopic: try TopicName("relay/u/reply"), correlationData: [9],
                                                                      userProperties: [StringPair("a", "1"), StringPair("a", "2")])),
            packetIdentifier: nil, dup: false)
        // The Keep Alive deadline is unchanged: no time has passed.
        XCTAssertEqual(actions, [.publish(expected)])
    }

    func testQoS1Publish_PubAckFollowsTheServicesAnswer() {
        var h = ServerHarness.connected()
        let actions = h.receive(publish("relay/g/ab/m", id: 5, dup: true))
        XCTAssertEqual(actions.publishes.first?.packetIdentifier, 5)
        XCTAssertEqual(actions.publishes.first?.dup, true)
        XCTAssertTrue(actions.sent.isEmpty) // no PUBACK before the service has taken it
        XCTAssertEqual(h.handle(.publishAccepted(packetIdentifier: 5)), [.send(.puback(PubAckPacket(packetIdentifier: 5)))])
        XCTAssertEqual(h.handle(.publishAccepted(packetIdentifier: 5)), []) // answered already
        h.receive(publish("relay/g/ab/m", id: 6))
        var reason = Properties()
        reason.reasonString = "not a member of the group"
        XCTAssertEqual(h.handle(.publishRefused(packetIdentifier: 6, reasonCode: .notAuthorized, reasonString: "not a member of the group")),
                       [.send(.puback(PubAckPacket(packetIdentifier: 6, reasonCode: .notAuthorized, properties: reason)))])
        // A code that is not a PUBACK Reason Code becomes 0x80 [MQTT-3.4.2-1].
        h.receive(publish("relay/g/ab/m", id: 7))
        XCTAssertEqual(h.handle(.publishRefused(packetIdentifier: 7, reasonCode: .sessionTakenOver, reasonString: nil)),
                       [.send(.puback(PubAckPacket(packetIdentifier: 7, reasonCode: .unspecifiedError)))])
        // 0x10 No matching subscribers is a success code and passes.
        h.receive(publish("relay/g/ab/m", id: 8))
        XCTAssertEqual(h.handle(.publishRefused(packetIdentifier: 8, reasonCode: .noMatchingSubscribers, reasonString: nil)).sent,
                       [.puback(PubAckPacket(packetIdentifier: 8, reasonCode: .noMatchingSubscribers))])
    }

    func testRequestProblemInformationZero_DropsReasonStrings() {
        // MQTT 5.0 §3.1.2.11.7 [MQTT-3.1.2-29].
        var properties = Properties()
        properties.requestProblemInformation = false
        var h = ServerHarness.connected(connect: ServerHarness.connectPacket(properties: properties))
        h.receive(publish("t", id: 1))
        XCTAssertEqual(h.handle(.publishRefused(packetIdentifier: 1, reasonCode: .quotaExceeded, reasonString: "slow down")),
                       [.send(.puback(PubAckPacket(packetIdentifier: 1, reasonCode: .quotaExceeded)))])
        // DISCONNECT keeps its Reason String.
        let actions = h.handle(.disconnect(reasonCode: .administrativeAction, reasonString: "removed"))
        XCTAssertEqual(actions.disconnect?.properties.reasonString, "removed")
    }

    func testReasonString_DroppedWhenItWouldExceedTheClientsMaximumPacketSize() {
        // [MQTT-3.4.2-2].
        var properties = Properties()
        properties.maximumPacketSize = 64
        var h = ServerHarness.connected(connect: ServerHarness.connectPacket(properties: properties))
        h.receive(publish("t", id: 1))
        let long = String(repeating: "x", count: 100)
        XCTAssertEqual(h.handle(.publishRefused(packetIdentifier: 1, reasonCode: .notAuthorized, reasonString: long)),
                       [.send(.puback(PubAckPacket(packetIdentifier: 1, reasonCode: .notAuthorized)))])
        h.receive(publish("t", id: 2))
        let fits = h.handle(.publishRefused(packetIdentifier: 2, reasonCode: .notAuthorized, reasonString: "short"))
        guard case .puback(let ack) = fits.sent.first else { return XCTFail() }
        XCTAssertEqual(ack.properties.reasonString, "short")
    }

    func testQoS2_IsRefusedWithQoSNotSupported() {
        var h = ServerHarness.connected()
        assertDisconnected(h.receive(publish("t", qos: .exactlyOnce)), .qosNotSupported)
        XCTAssertEqual(h.connection.phase, .closing)
    }

    func testReceiveMaximum_ExceededByTheClient() {
        // MQTT 5.0 §3.3.4: more than our Receive Maximum unacknowledged QoS 1 PUBLISH: 0x93.
        var configuration = MQTTServerConfiguration()
        configuration.receiveMaximum = 2
        var h = ServerHarness.connected(configuration: configuration)
        XCTAssertEqual(h.receive(publish("t", id: 1), publish("t", id: 2)).publishes.count, 2)
        h.handle(.publishAccepted(packetIdentifier: 1))
        XCTAssertEqual(h.receive(publish("t", id: 3)).publishes.count, 1)
        // QoS 0 does not count.
        XCTAssertEqual(h.receive(publish("t", qos: .atMostOnce)).publishes.count, 1)
        assertDisconnected(h.receive(publish("t", id: 4)), .receiveMaximumExceeded)
    }

    func testPacketIdentifierInUse_IsAProtocolError() {
        var h = ServerHarness.connected()
        h.receive(publish("t", id: 9))
        assertDisconnected(h.receive(publish("t", id: 9, dup: true)), .protocolError)
        // One identifier space for PUBLISH, SUBSCRIBE and UNSUBSCRIBE (§2.2.1).
        var s = ServerHarness.connected()
        s.receive(.subscribe(SubscribePacket(packetIdentifier: 4, subscriptions: [.init(topicFilter: "a")])))
        assertDisconnected(s.receive(publish("t", id: 4)), .protocolError)
        var u = ServerHarness.connected()
        u.receive(.unsubscribe(UnsubscribePacket(packetIdentifier: 4, topicFilters: ["a"])))
        assertDisconnected(u.receive(.subscribe(SubscribePacket(packetIdentifier: 4, subscriptions: [.init(topicFilter: "b")]))), .protocolError)
        // Once answered, the identifier is free again.
        var free = ServerHarness.connected()
        free.receive(publish("t", id: 9))
        free.handle(.publishAccepted(packetIdentifier: 9))
        XCTAssertEqual(free.receive(publish("t", id: 9)).publishes.count, 1)
    }

    func testTopicAliases() throws {
        // MQTT 5.0 §3.3.2.3.4, §3.3.4.
        func alias(_ value: UInt16) -> Properties { var p = Properties(); p.topicAlias = value; return p }
        var h = ServerHarness.connected()
        XCTAssertEqual(h.receive(publish("relay/g/ab/m", qos: .atMostOnce, properties: alias(1))).publishes.first?.message.topic.value, "relay/g/ab/m")
        XCTAssertEqual(h.receive(publish("", qos: .atMostOnce, properties: alias(1))).publishes.first?.message.topic.value, "relay/g/ab/m")
        // Remapped by a later PUBLISH with a Topic Name.
        h.receive(publish("relay/g/cd/m", qos: .atMostOnce, properties: alias(1)))
        XCTAssertEqual(h.receive(publish("", qos: .atMostOnce, properties: alias(1))).publishes.first?.message.topic.value, "relay/g/cd/m")
        XCTAssertEqual(h.receive(publish("", qos: .atMostOnce, properties: alias(16))).closeCode, .protocolError) // never set
        var zero = ServerHarness.connected()
        assertDisconnected(zero.receive(publish("t", qos: .atMostOnce, properties: alias(0))), .topicAliasInvalid)
        var above = ServerHarness.connected()
        assertDisconnected(above.receive(publish("t", qos: .atMostOnce, properties: alias(17))), .topicAliasInvalid)
        var none = ServerHarness.connected()
        assertDisconnected(none.receive(publish("", qos: .atMostOnce)), .protocolError)
        // With Topic Alias Maximum 0 announced, any alias is invalid.
        var configuration = MQTTServerConfiguration()
        configuration.topicAliasMaximum = 0
        var off = ServerHarness.connected(configuration: configuration)
        assertDisconnected(off.receive(publish("t", qos: .atMostOnce, properties: alias(1))), .topicAliasInvalid)
        // Aliases do not survive the connection [MQTT-3.3.2-7]: a new connection starts empty.
        var next = ServerHarness.connected()
        assertDisconnected(next.receive(publish("", qos: .atMostOnce, properties: alias(1))), .protocolError)
    }

    func testInvalidPublishes() {
        var wildcard = ServerHarness.connected()
        assertDisconnected(wildcard.receive(publish("relay/+/m", qos: .atMostOnce)), .topicNameInvalid) // [MQTT-3.3.2-2]
        var subscriptionIdentifier = ServerHarness.connected()
        var sid = Properties()
        sid.subscriptionIdentifiers = [3]
        assertDisconnected(subscriptionIdentifier.receive(publish("t", properties: sid)), .protocolError) // [MQTT-3.3.4-6]
        var responseTopic = ServerHarness.connected()
        var rt = Properties()
        rt.responseTopic = "reply/#"
        assertDisconnected(responseTopic.receive(publish("t", properties: rt)), .protocolError) // [MQTT-3.3.2-14]
        var dupAtQoS0 = ServerHarness.connected()
        assertDisconnected(dupAtQoS0.receive(bytes: [0x38, 0x03, 0x00, 0x01, 0x74]), .malformedPacket)
        var badUTF8 = ServerHarness.connected()
        assertDisconnected(badUTF8.receive(bytes: [0x30, 0x05, 0x00, 0x02, 0xED, 0xA0, 0x00]), .malformedPacket)
    }

    func testPayloadFormatIndicator_UTF8IsChecked() {
        var utf8 = Properties()
        utf8.payloadFormatIndicator = .utf8
        var h = ServerHarness.connected()
        let actions = h.receive(publish("t", id: 3, payload: [0xC3, 0x28], properties: utf8))
        XCTAssertTrue(actions.publishes.isEmpty)
        guard case .puback(let ack) = actions.sent.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(ack.reasonCode, .payloadFormatInvalid)
        XCTAssertEqual(h.receive(publish("t", id: 4, payload: Array("héllo".utf8), properties: utf8)).publishes.count, 1)
        var qos0 = ServerHarness.connected()
        assertDisconnected(qos0.receive(publish("t", qos: .atMostOnce, payload: [0xFF], properties: utf8)), .payloadFormatInvalid)
    }

    func testMalformedAndOversizedPackets_WhileConnected() {
        var configuration = MQTTServerConfiguration()
        configuration.maximumPacketSize = 128
        var big = ServerHarness.connected(configuration: configuration)
        assertDisconnected(big.receive(publish("t", qos: .atMostOnce, payload: [UInt8](repeating: 0, count: 200))), .packetTooLarge)
        var reserved = ServerHarness.connected()
        assertDisconnected(reserved.receive(bytes: [0xC1, 0x00]), .malformedPacket) // PINGREQ flags
        var zero = ServerHarness.connected()
        assertDisconnected(zero.receive(bytes: [0x00, 0x00]), .malformedPacket)
        var length = ServerHarness.connected()
        assertDisconnected(length.receive(bytes: [0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]), .malformedPacket)
        var duplicate = ServerHarness.connected()
        assertDisconnected(duplicate.receive(bytes: [0x30, 0x0A, 0x00, 0x01, 0x74, 0x04, 0x02, 0, 0, 0, 1, 0x02]), .malformedPacket)
        var duplicateFull = ServerHarness.connected()
        assertDisconnected(duplicateFull.receive(bytes: [0x30, 0x0E, 0x00, 0x01, 0x74, 0x0A, 0x02, 0, 0, 0, 1, 0x02, 0, 0, 0, 2]), .protocolError)
    }

    func testUnexpectedPackets_AreProtocolErrors() {
        let unexpected: [MQTTPacket] = [
            .auth(AuthPacket(reasonCode: .reAuthenticate, properties: { var p = Properties(); p.authenticationMethod = "x"; return p }())),
            .pubrec(PubAckPacket(packetIdentifier: 1)), .pubrel(PubAckPacket(packetIdentifier: 1)), .pubcomp(PubAckPacket(packetIdentifier: 1)),
            .connack(ConnAckPacket()), .suback(SubAckPacket(packetIdentifier: 1, reasonCodes: [.success])),
            .unsuback(UnsubAckPacket(packetIdentifier: 1, reasonCodes: [.success])), .pingresp,
        ]
        for packet in unexpected {
            var h = ServerHarness.connected()
            assertDisconnected(h.receive(packet), .protocolError)
        }
    }

    func testPing_AndKeepAlive() {
        var h = ServerHarness.connected(connect: ServerHarness.connectPacket(keepAlive: 10))
        h.advance(seconds: 14)
        XCTAssertEqual(h.handle(.deadlineFired), []) // not yet: 1.5 × 10 s
        let ping = h.receive(.pingreq)
        XCTAssertEqual(ping, [.send(.pingresp), .armDeadline(h.now + 15 * ServerHarness.second)])
        h.advance(seconds: 14.9)
        XCTAssertEqual(h.handle(.deadlineFired), [])
        h.advance(seconds: 0.1)
        let timeout = h.handle(.deadlineFired)
        // [MQTT-3.1.2-22]: closed as if the network failed, so the Will stays; the client is told 0x8D.
        assertDisconnected(timeout, .keepAliveTimeout)
        XCTAssertEqual(timeout.last, .armDeadline(nil))
    }

    func testClientDisconnect() throws {
        let will = ConnectPacket.Will(topic: "relay/u/x", payload: [1])
        var properties = Properties()
        properties.sessionExpiryInterval = 100
        // 0x00: the Will is discarded [MQTT-3.14.4-3]; no packet is sent back.
        var normal = ServerHarness.connected(connect: ServerHarness.connectPacket(properties: properties, will: will))
        let actions = normal.receive(.disconnect(DisconnectPacket()))
        XCTAssertEqual(actions.sent, [])
        XCTAssertEqual(actions.sessionEnd?.will, nil)
        XCTAssertEqual(actions.sessionEnd?.sessionExpiryInterval, 100)
        XCTAssertEqual(actions.closeCode, .normalDisconnection)
        // 0x04: the Will is kept; the Session Expiry Interval may change (§3.14.2.2.2).
        var withWill = ServerHarness.connected(connect: ServerHarness.connectPacket(properties: properties, will: will))
        var change = Properties()
        change.sessionExpiryInterval = 0
        let end = withWill.receive(.disconnect(DisconnectPacket(reasonCode: .disconnectWithWillMessage, properties: change))).sessionEnd
        XCTAssertEqual(end?.will?.message.topic.value, "relay/u/x")
        XCTAssertEqual(end?.sessionExpiryInterval, 0)
        // From 0 on CONNECT to non-zero on DISCONNECT: a Protocol Error, and the DISCONNECT is not valid.
        var zero = ServerHarness.connected(connect: ServerHarness.connectPacket(will: will))
        var raise = Properties()
        raise.sessionExpiryInterval = 10
        let error = zero.receive(.disconnect(DisconnectPacket(properties: raise)))
        assertDisconnected(error, .protocolError)
        XCTAssertNotNil(error.sessionEnd?.will)
        XCTAssertEqual(error.sessionEnd?.sessionExpiryInterval, 0)
    }

    func testTransportClosed_KeepsTheWill() {
        var h = ServerHarness.connected(connect: ServerHarness.connectPacket(will: ConnectPacket.Will(topic: "w", payload: [])))
        let actions = h.handle(.transportClosed)
        XCTAssertEqual(actions.sessionEnd?.will?.message.topic.value, "w")
        XCTAssertNil(actions.closeCode)
        XCTAssertEqual(h.connection.phase, .closed)
    }
}
