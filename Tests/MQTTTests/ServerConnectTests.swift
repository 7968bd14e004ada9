import XCTest
@testable import MQTT

final class ServerConnectTests: XCTestCase {
    private let second = ServerHarness.second

    func testConnect_AsksForAuthentication_AndPausesReading() throws {
        var h = ServerHarness()
        var properties = Properties()
        properties.sessionExpiryInterval = 3600
        properties.userProperties = [StringPair("app", "catbird")]
        let will = ConnectPacket.Will(topic: "relay/u/did:plc:alice", payload: Array("gone".utf8), qos: .atLeastOnce, retain: true,
                                      properties: { var p = Properties(); p.willDelayInterval = 5; p.contentType = "text/plain"; return p }())
        let actions = h.receive(.connect(ServerHarness.connectPacket(cleanStart: false, keepAlive: 60, properties: properties, will: will)))
        let expected = ConnectRequest(
            clientIdentifier: "0123456789abcdef0123456789abcdef", userName: "did:plc:alice", password: Array("token".utf8),
            cleanStart: false, sessionExpiryInterval: 3600, keepAlive: 60,
            will: WillMessage(message: ApplicationMessage(topic: try TopicName("relay/u/did:plc:alice"), payload: Array("gone".utf8),
                                                          qos: .atLeastOnce, retain: true,
                                                          properties: MessageProperties(contentType: "text/plain")),
                              delayInterval: 5),
            userProperties: [StringPair("app", "catbird")])
        XCTAssertEqual(actions, [.authenticate(expected), .pauseReading])
        XCTAssertEqual(h.connection.phase, .authenticating)
    }

    func testAccepted_SendsConnAckWithWhatTheServerSupports() {
        var h = ServerHarness()
        h.receive(.connect(ServerHarness.connectPacket(keepAlive: 60)))
        let actions = h.handle(.authenticated(.accepted(SessionGrant())))
        var properties = Properties()
        properties.receiveMaximum = 32
        properties.maximumQoS = .atLeastOnce
        properties.maximumPacketSize = 1 << 20
        properties.topicAliasMaximum = 16
        properties.subscriptionIdentifierAvailable = false
        properties.sharedSubscriptionAvailable = false
        XCTAssertEqual(actions, [
            .send(.connack(ConnAckPacket(sessionPresent: false, reasonCode: .success, properties: properties))),
            .resumeReading,
            // MQTT 5.0 §3.1.2.10: 1.5 × Keep Alive.
            .armDeadline(h.now + 90 * second),
        ])
        XCTAssertEqual(h.connection.phase, .connected)
    }

    func testSessionPresent_OnlyWithoutCleanStart() {
        var resumed = ServerHarness()
        resumed.receive(.connect(ServerHarness.connectPacket(cleanStart: false)))
        XCTAssertEqual(resumed.handle(.authenticated(.accepted(SessionGrant(sessionPresent: true)))).connack?.sessionPresent, true)
        // [MQTT-3.2.2-2]: Clean Start 1 always answers Session Present 0.
        var clean = ServerHarness()
        clean.receive(.connect(ServerHarness.connectPacket(cleanStart: true)))
        XCTAssertEqual(clean.handle(.authenticated(.accepted(SessionGrant(sessionPresent: true)))).connack?.sessionPresent, false)
    }

    func testSessionExpiryAndKeepAlive_AreCappedAndAnnounced() {
        var configuration = MQTTServerConfiguration()
        configuration.maximumSessionExpiryInterval = 600
        configuration.maximumKeepAlive = 120
        for (asked, keepAlive, expectedExpiry, announcedExpiry, serverKeepAlive) in [
            (UInt32(3600), UInt16(60), UInt32(600), UInt32?.some(600), UInt16?.none),
            (300, 0, 300, nil, 120),     // Keep Alive 0 is given one (§3.2.2.3.14)
            (0, 500, 0, nil, 120),
            (600, 120, 600, nil, nil),
        ] {
            var h = ServerHarness(configuration: configuration)
            var properties = Properties()
            properties.sessionExpiryInterval = asked
            let first = h.receive(.connect(ServerHarness.connectPacket(keepAlive: keepAlive, properties: properties)))
            guard case .authenticate(let request) = first.first else { return XCTFail() }
            XCTAssertEqual(request.sessionExpiryInterval, expectedExpiry)
            XCTAssertEqual(request.keepAlive, serverKeepAlive ?? keepAlive)
            let connack = h.handle(.authenticated(.accepted(SessionGrant()))).connack
            XCTAssertEqual(connack?.properties.sessionExpiryInterval, announcedExpiry)
            XCTAssertEqual(connack?.properties.serverKeepAlive, serverKeepAlive)
        }
    }

    func testKeepAliveZero_WithNoServerMaximum_ArmsNoDeadline() {
        var configuration = MQTTServerConfiguration()
        configuration.maximumKeepAlive = 0
        var h = ServerHarness(configuration: configuration)
        h.receive(.connect(ServerHarness.connectPacket(keepAlive: 0)))
        let actions = h.handle(.authenticated(.accepted(SessionGrant())))
        XCTAssertTrue(actions.contains(.armDeadline(nil)), "\(actions)")
        XCTAssertNil(actions.connack?.properties.serverKeepAlive)
    }

    func testEmptyClientIdentifier_NeedsAnAssignedOne() {
        var assigned = ServerHarness()
        assigned.receive(.connect(ServerHarness.connectPacket(clientIdentifier: "")))
        let actions = assigned.handle(.authenticated(.accepted(SessionGrant(assignedClientIdentifier: "auto-7"))))
        XCTAssertEqual(actions.connack?.properties.assignedClientIdentifier, "auto-7")
        assigned.receive(.disconnect(DisconnectPacket()))
        var refused = ServerHarness()
        refused.receive(.connect(ServerHarness.connectPacket(clientIdentifier: "")))
        let refusal = refused.handle(.authenticated(.accepted(SessionGrant())))
        XCTAssertEqual(refusal.connack?.reasonCode, .clientIdentifierNotValid)
        XCTAssertEqual(refusal.closeCode, .clientIdentifierNotValid)
    }

    func testRefused_AnswersConnAckThenCloses() {
        var h = ServerHarness()
        h.receive(.connect(ServerHarness.connectPacket()))
        let actions = h.handle(.authenticated(.refused(reasonCode: .badUserNameOrPassword, reasonString: "token expired")))
        var properties = Properties()
        properties.reasonString = "token expired"
        XCTAssertEqual(actions, [
            .send(.connack(ConnAckPacket(sessionPresent: false, reasonCode: .badUserNameOrPassword, properties: properties))),
            .close(.badUserNameOrPassword),
            .armDeadline(nil),
        ])
        XCTAssertEqual(h.connection.phase, .closing)
        // Not a failing Connect Reason Code: 0x80.
        for code in [ReasonCode.sessionTakenOver, .success, .grantedQoS1] {
            var other = ServerHarness()
            other.receive(.connect(ServerHarness.connectPacket()))
            XCTAssertEqual(other.handle(.authenticated(.refused(reasonCode: code, reasonString: nil))).connack?.reasonCode, .unspecifiedError)
        }
    }

    func testPacketBeforeConnect_ClosesWithoutConnAck() {
        // MQTT 5.0 §3.1.0 [MQTT-3.1.0-1].
        let firsts: [[UInt8]] = [
            MQTTPacket.publish(PublishPacket(topicName: "a", payload: [])).encoded(),
            MQTTPacket.pingreq.encoded(),
            MQTTPacket.subscribe(SubscribePacket(packetIdentifier: 1, subscriptions: [.init(topicFilter: "#")])).encoded(),
            MQTTPacket.disconnect(DisconnectPacket()).encoded(),
            [0x00], [0xFF, 0xFF], Array("GET / HTTP/1.1\r\n".utf8),
        ]
        for bytes in firsts {
            var h = ServerHarness()
            let actions = h.receive(bytes: bytes)
            XCTAssertEqual(actions, [.close(.protocolError), .armDeadline(nil)], "\(bytes)")
            XCTAssertEqual(h.connection.phase, .closing)
        }
    }

    func testBadConnect_GetsConnAckWithTheReasonCode() {
        func refusal(_ bytes: [UInt8], configuration: MQTTServerConfiguration = MQTTServerConfiguration()) -> (ReasonCode?, ReasonCode?) {
            var h = ServerHarness(configuration: configuration)
            let actions = h.receive(bytes: bytes)
            XCTAssertEqual(h.connection.phase, .closing, "\(bytes)")
            return (actions.connack?.reasonCode, actions.closeCode)
        }
        let good = MQTTPacket.connect(ServerHarness.connectPacket()).encoded()
        // Reserved fixed-header flags (§2.1.3): 0x81.
        XCTAssertEqual(refusal([0x11] + good.dropFirst()).0, .malformedPacket)
        // Reserved Connect Flags bit (§3.1.2.3).
        var reserved = good
        reserved[2 + 7] |= 0x01
        XCTAssertEqual(refusal(reserved).0, .malformedPacket)
        // Truncated body that ends the stream inside a field: still incomplete, so no answer yet...
        var partial = ServerHarness()
        XCTAssertEqual(partial.receive(bytes: Array(good.prefix(10))), [])
        // ...but a Remaining Length that ends inside a field is malformed.
        var short = Array(good.prefix(12))
        short[1] = 10
        XCTAssertEqual(refusal(short).0, .malformedPacket)
        // Larger than our Maximum Packet Size: 0x95.
        var small = MQTTServerConfiguration()
        small.maximumPacketSize = 20
        XCTAssertEqual(refusal(good, configuration: small).0, .packetTooLarge)
        // A duplicate property: 0x82.
        var twice = Properties()
        twice.receiveMaximum = 5
        var dupBytes = MQTTPacket.connect(ServerHarness.connectPacket(properties: twice)).encoded()
        // Property Length 3 → 6, and the property repeated.
        let at = 2 + 10
        XCTAssertEqual(Array(dupBytes[at...(at + 3)]), [0x03, 0x21, 0x00, 0x05])
        dupBytes.replaceSubrange(at...(at + 3), with: [0x06, 0x21, 0x00, 0x05, 0x21, 0x00, 0x05])
        dupBytes[1] += 3
        XCTAssertEqual(refusal(dupBytes).0, .protocolError)
        // Enhanced authentication is not offered (§4.12): 0x8C.
        var auth = Properties()
        auth.authenticationMethod = "SCRAM-SHA-256"
        XCTAssertEqual(refusal(MQTTPacket.connect(ServerHarness.connectPacket(properties: auth)).encoded()).0, .badAuthenticationMethod)
        // Will QoS 2 above our Maximum QoS: 0x9B [MQTT-3.2.2-12].
        let will2 = ConnectPacket.Will(topic: "w", payload: [], qos: .exactlyOnce)
        XCTAssertEqual(refusal(MQTTPacket.connect(ServerHarness.connectPacket(will: will2)).encoded()).0, .qosNotSupported)
        // Will Topic with a wildcard: 0x90.
        let willWildcard = ConnectPacket.Will(topic: "w/#", payload: [])
        XCTAssertEqual(refusal(MQTTPacket.connect(ServerHarness.connectPacket(will: willWildcard)).encoded()).0, .topicNameInvalid)
        // A UTF-8 Will payload that is not UTF-8: 0x99 (§3.1.3.2.3).
        let willText = ConnectPacket.Will(topic: "w", payload: [0xFF], properties: { var p = Properties(); p.payloadFormatIndicator = .utf8; return p }())
        XCTAssertEqual(refusal(MQTTPacket.connect(ServerHarness.connectPacket(will: willText)).encoded()).0, .payloadFormatInvalid)
        // A bad UTF-8 User Name: 0x81.
        var badName = good
        let nameAt = good.count - 2 - 5 - 13 // "did:plc:alice" sits before the password
        badName[nameAt] = 0xC0
        XCTAssertEqual(refusal(badName).0, .malformedPacket)
    }

    func testOtherProtocolVersions() {
        // MQTT 3.1.1 (level 4) and 3.1 ("MQIsdp", level 3) get the 3.1.1 CONNACK refusal they can read.
        let v311: [UInt8] = [0x10, 0x0D, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x3C, 0x00, 0x01, 0x63]
        let v31: [UInt8] = [0x10, 0x0F, 0x00, 0x06, 0x4D, 0x51, 0x49, 0x73, 0x64, 0x70, 0x03, 0x02, 0x00, 0x3C, 0x00, 0x01, 0x63]
        for bytes in [v311, v31] {
            var h = ServerHarness()
            XCTAssertEqual(h.receive(bytes: bytes), [.sendBytes([0x20, 0x02, 0x00, 0x01]), .close(.unsupportedProtocolVersion), .armDeadline(nil)])
        }
        // Any other level: the MQTT 5.0 CONNACK 0x84 (§3.1.2.2 [MQTT-3.1.2-2]).
        var v6 = ServerHarness()
        let actions = v6.receive(bytes: [0x10, 0x0D, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x06, 0x02, 0x00, 0x3C, 0x00, 0x01, 0x63])
        XCTAssertEqual(actions.connack?.reasonCode, .unsupportedProtocolVersion)
    }

    func testPacketsAfterConnect_WaitForAuthentication() {
        // MQTT 5.0 §3.1.4: a client may send on before CONNACK; nothing is processed until accepted
        // [MQTT-3.1.4-6], and nothing at all if refused.
        let stream = [MQTTPacket.connect(ServerHarness.connectPacket()),
                      .publish(PublishPacket(topicName: "relay/g/ab/m", payload: [7], qos: .atLeastOnce, packetIdentifier: 1)),
                      .pingreq].flatMap { $0.encoded() }
        let split = MQTTPacket.connect(ServerHarness.connectPacket()).encoded().count + 3
        var accepted = ServerHarness()
        let first = accepted.receive(bytes: Array(stream.prefix(split)))
        XCTAssertEqual(first.count, 2) // .authenticate, .pauseReading
        XCTAssertEqual(accepted.receive(bytes: Array(stream.dropFirst(split))), [])
        let actions = accepted.handle(.authenticated(.accepted(SessionGrant())))
        XCTAssertEqual(actions.sent.map(\.type), [.connack, .pingresp])
        XCTAssertEqual(actions.publishes.map(\.message.payload), [[7]])
        var refused = ServerHarness()
        refused.receive(bytes: stream)
        let refusal = refused.handle(.authenticated(.refused(reasonCode: .notAuthorized, reasonString: nil)))
        XCTAssertEqual(refusal.sent.map(\.type), [.connack])
        XCTAssertTrue(refusal.publishes.isEmpty)
    }

    func testTooMuchDataBeforeConnAck_IsRefused() {
        var configuration = MQTTServerConfiguration()
        configuration.maximumBufferedBytes = 100
        var h = ServerHarness(configuration: configuration)
        h.receive(.connect(ServerHarness.connectPacket()))
        XCTAssertEqual(h.receive(bytes: [UInt8](repeating: 0xC0, count: 100)), [])
        let actions = h.receive(bytes: [0xC0])
        XCTAssertEqual(actions.connack?.reasonCode, .quotaExceeded)
        XCTAssertEqual(actions.closeCode, .quotaExceeded)
        // The late authentication answer changes nothing.
        XCTAssertEqual(h.handle(.authenticated(.accepted(SessionGrant()))), [])
        // Also when the excess comes in the same read as the CONNECT.
        var oneRead = ServerHarness(configuration: configuration)
        let stream = MQTTPacket.connect(ServerHarness.connectPacket()).encoded() + [UInt8](repeating: 0xC0, count: 101)
        XCTAssertEqual(oneRead.receive(bytes: stream).connack?.reasonCode, .quotaExceeded)
    }

    func testConnectTimeout() {
        // No CONNECT: close silently (§3.1.4 step 1).
        var idle = ServerHarness()
        idle.advance(seconds: 9.9)
        XCTAssertEqual(idle.handle(.deadlineFired), []) // early: nothing
        idle.advance(seconds: 0.1)
        XCTAssertEqual(idle.handle(.deadlineFired), [.close(.maximumConnectTime), .armDeadline(nil)])
        // CONNECT, but authentication never answers: CONNACK 0x88.
        var slow = ServerHarness()
        slow.receive(.connect(ServerHarness.connectPacket()))
        slow.advance(seconds: 10)
        let actions = slow.handle(.deadlineFired)
        XCTAssertEqual(actions.connack?.reasonCode, .serverUnavailable)
        XCTAssertEqual(slow.handle(.authenticated(.accepted(SessionGrant()))), [])
        // A CONNECT trickling in byte by byte does not extend the deadline.
        var trickle = ServerHarness()
        for byte in MQTTPacket.connect(ServerHarness.connectPacket()).encoded().prefix(20) {
            trickle.advance(seconds: 0.6)
            XCTAssertFalse(trickle.receive(bytes: [byte]).contains { if case .armDeadline = $0 { return true } else { return false } })
        }
        XCTAssertEqual(trickle.handle(.deadlineFired).closeCode, .maximumConnectTime)
    }

    func testSecondConnect_IsAProtocolError() {
        var h = ServerHarness.connected()
        let actions = h.receive(.connect(ServerHarness.connectPacket()))
        XCTAssertEqual(actions.disconnect?.reasonCode, .protocolError)
        XCTAssertEqual(actions.closeCode, .protocolError)
        XCTAssertNotNil(actions.sessionEnd)
        // Even a second CONNECT that is itself malformed.
        var other = ServerHarness.connected()
        XCTAssertEqual(other.receive(bytes: [0x10, 0x01, 0x00]).disconnect?.reasonCode, .protocolError)
    }

    func testServerDisconnect_BeforeConnAck_UsesConnAck() {
        var h = ServerHarness()
        h.receive(.connect(ServerHarness.connectPacket()))
        // [MQTT-3.14.0-1]: no DISCONNECT before CONNACK; 0x8B is not a Connect Reason Code, so 0x80.
        let actions = h.handle(.disconnect(reasonCode: .serverShuttingDown, reasonString: nil))
        XCTAssertEqual(actions.connack?.reasonCode, .unspecifiedError)
        XCTAssertNil(actions.disconnect)
        var busy = ServerHarness()
        busy.receive(.connect(ServerHarness.connectPacket()))
        XCTAssertEqual(busy.handle(.disconnect(reasonCode: .serverBusy, reasonString: nil)).connack?.reasonCode, .serverBusy)
        var early = ServerHarness()
        XCTAssertEqual(early.handle(.disconnect(reasonCode: .serverShuttingDown, reasonString: nil)), [.close(.serverShuttingDown), .armDeadline(nil)])
    }
}
