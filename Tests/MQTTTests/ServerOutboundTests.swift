import XCTest
@testable import MQTT

final class ServerOutboundTests: XCTestCase {
    private func connected(receiveMaximum: UInt16? = nil, maximumPacketSize: UInt32? = nil, cleanStart: Bool = true,
                           configuration: MQTTServerConfiguration = MQTTServerConfiguration(),
                           grant: SessionGrant = SessionGrant()) -> ServerHarness {
        var properties = Properties()
        properties.receiveMaximum = receiveMaximum
        properties.maximumPacketSize = maximumPacketSize
        return ServerHarness.connected(configuration: configuration,
                                       connect: ServerHarness.connectPacket(cleanStart: cleanStart, properties: properties), grant: grant)
    }

    func testQoS0Delivery() {
        var h = connected()
        var m = message("relay/g/ab/m", qos: .atMostOnce, retain: true)
        m.properties = MessageProperties(payloadFormat: .unspecified, contentType: "application/mls-message", userProperties: [StringPair("k", "v")])
        var properties = Properties()
        properties.payloadFormatIndicator = .unspecified
        properties.contentType = "application/mls-message"
        properties.userProperties = [StringPair("k", "v")]
        XCTAssertEqual(h.handle(.deliver(OutboundMessage(id: 1, message: m))),
                       [.send(.publish(PublishPacket(topicName: "relay/g/ab/m", payload: [1, 2, 3], retain: true, properties: properties)))])
        XCTAssertEqual(h.connection.outboundInflightCount, 0)
    }

    func testQoS1Delivery_IsTrackedUntilPubAck() {
        var h = connected()
        let actions = h.handle(.deliver(OutboundMessage(id: 42, message: message("t"))))
        XCTAssertEqual(actions, [.send(.publish(PublishPacket(topicName: "t", payload: [1, 2, 3], qos: .atLeastOnce, packetIdentifier: 1))),
                                 .delivered(messageID: 42, packetIdentifier: 1)])
        XCTAssertEqual(h.receive(.puback(PubAckPacket(packetIdentifier: 2))), []) // unknown: ignored
        XCTAssertEqual(h.receive(.puback(PubAckPacket(packetIdentifier: 1, reasonCode: .implementationSpecificError))),
                       [.acknowledged(messageID: 42, packetIdentifier: 1, reasonCode: .implementationSpecificError)])
        XCTAssertEqual(h.receive(.puback(PubAckPacket(packetIdentifier: 1))), []) // twice: ignored
        // QoS 2 is sent as QoS 1 (§3.2.2.3.4).
        let qos2 = h.handle(.deliver(OutboundMessage(id: 43, message: message("t", qos: .exactlyOnce))))
        XCTAssertEqual(qos2.outboundPublishes.first?.qos, .atLeastOnce)
    }

    func testClientsReceiveMaximum_BoundsInflight_AndTheQueueDrainsInOrder() {
        // MQTT 5.0 §4.9 [MQTT-4.9.0-2]; the queue keeps order (§4.6).
        var h = connected(receiveMaximum: 2)
        var delivered: [UInt64: UInt16] = [:]
        for id in 1...5 as ClosedRange<UInt64> {
            for action in h.handle(.deliver(OutboundMessage(id: id, message: message("t", [UInt8(id)])))) {
                if case let .delivered(messageID, packetIdentifier) = action { delivered[messageID] = packetIdentifier }
            }
        }
        XCTAssertEqual(delivered, [1: 1, 2: 2])
        XCTAssertEqual(h.connection.outboundInflightCount, 2)
        XCTAssertEqual(h.connection.outboundQueuedCount, 3)
        // QoS 0 is not held back by the quota.
        XCTAssertEqual(h.handle(.deliver(OutboundMessage(id: 99, message: message("t", qos: .atMostOnce)))).outboundPublishes.count, 1)
        let next = h.receive(.puback(PubAckPacket(packetIdentifier: 2)))
        XCTAssertEqual(next, [.acknowledged(messageID: 2, packetIdentifier: 2, reasonCode: .success),
                              .send(.publish(PublishPacket(topicName: "t", payload: [3], qos: .atLeastOnce, packetIdentifier: 3))),
                              .delivered(messageID: 3, packetIdentifier: 3)])
        let end = h.receive(.disconnect(DisconnectPacket())).sessionEnd
        XCTAssertEqual(end?.inflight.map(\.packetIdentifier), [1, 3])
        XCTAssertEqual(end?.inflight.map(\.outbound.id), [1, 3])
        XCTAssertEqual(end?.queued.map(\.id), [4, 5])
    }

    func testQueueLimit() {
        var configuration = MQTTServerConfiguration()
        configuration.maximumQueuedMessages = 2
        var h = connected(receiveMaximum: 1, configuration: configuration)
        h.handle(.deliver(OutboundMessage(id: 1, message: message("t"))))
        XCTAssertEqual(h.handle(.deliver(OutboundMessage(id: 2, message: message("t")))), [])
        XCTAssertEqual(h.handle(.deliver(OutboundMessage(id: 3, message: message("t")))), [])
        XCTAssertEqual(h.handle(.deliver(OutboundMessage(id: 4, message: message("t")))), [.discarded(messageID: 4, reason: .queueFull)])
    }

    func testQueuedMessages_Expire_OrGoOutWithTheTimeTheyWaitedTakenOff() {
        var h = connected(receiveMaximum: 1)
        func expiring(_ id: UInt64, _ seconds: UInt32) -> OutboundMessage {
            var m = message("t")
            m.properties.messageExpiryInterval = seconds
            return OutboundMessage(id: id, message: m)
        }
        XCTAssertEqual(h.handle(.deliver(expiring(1, 100))).outboundPublishes.first?.properties.messageExpiryInterval, 100)
        h.handle(.deliver(expiring(2, 5)))
        h.handle(.deliver(expiring(3, 60)))
        h.advance(seconds: 10)
        let actions = h.receive(.puback(PubAckPacket(packetIdentifier: 1)))
        // [MQTT-3.3.2-5]: 2 expired while queued; [MQTT-3.3.2-6]: 3 goes out with 50 s left.
        XCTAssertTrue(actions.contains(.discarded(messageID: 2, reason: .expired)), "\(actions)")
        XCTAssertEqual(actions.outboundPublishes.map(\.properties.messageExpiryInterval), [50])
    }

    func testTooLargeForTheClient_IsDiscardedAsIfSent() {
        // MQTT 5.0 §3.1.2.11.4 [MQTT-3.1.2-24], [MQTT-3.1.2-25].
        var h = connected(maximumPacketSize: 50)
        XCTAssertEqual(h.handle(.deliver(OutboundMessage(id: 1, message: message("t", [UInt8](repeating: 0, count: 60))))),
                       [.discarded(messageID: 1, reason: .packetTooLarge)])
        XCTAssertEqual(h.handle(.deliver(OutboundMessage(id: 2, message: message("t", [UInt8](repeating: 0, count: 60), qos: .atMostOnce)))),
                       [.discarded(messageID: 2, reason: .packetTooLarge)])
        XCTAssertEqual(h.connection.outboundInflightCount, 0)
        // Exactly at the limit is sent: 2 fixed header + 3 topic + 2 id + 1 properties + 42 payload = 50.
        let fits = h.handle(.deliver(OutboundMessage(id: 3, message: message("t", [UInt8](repeating: 0, count: 42)))))
        XCTAssertEqual(fits.outboundPublishes.count, 1)
        XCTAssertEqual(MQTTPacket.publish(fits.outboundPublishes[0]).encoded().count, 50)
    }

    func testResumedSession_ResendsInflightWithDupAndOriginalIdentifiers() {
        // MQTT 5.0 §4.4 [MQTT-4.4.0-1].
        let inflight = [InflightMessage(packetIdentifier: 7, outbound: OutboundMessage(id: 70, message: message("a"))),
                        InflightMessage(packetIdentifier: 9, outbound: OutboundMessage(id: 90, message: message("b")))]
        var h = ServerHarness(configuration: MQTTServerConfiguration())
        var properties = Properties()
        properties.receiveMaximum = 1
        h.receive(.connect(ServerHarness.connectPacket(cleanStart: false, properties: properties)))
        let actions = h.handle(.authenticated(.accepted(SessionGrant(sessionPresent: true, inflight: inflight))))
        XCTAssertEqual(actions.connack?.sessionPresent, true)
        XCTAssertEqual(actions.outboundPublishes, [PublishPacket(topicName: "a", payload: [1, 2, 3], qos: .atLeastOnce, packetIdentifier: 7, dup: true)])
        // A new message must not take identifier 9, still held by the queued resend.
        h.handle(.deliver(OutboundMessage(id: 100, message: message("c"))))
        let next = h.receive(.puback(PubAckPacket(packetIdentifier: 7)))
        XCTAssertEqual(next.outboundPublishes, [PublishPacket(topicName: "b", payload: [1, 2, 3], qos: .atLeastOnce, packetIdentifier: 9, dup: true)])
        let last = h.receive(.puback(PubAckPacket(packetIdentifier: 9)))
        XCTAssertEqual(last.outboundPublishes.map(\.packetIdentifier), [1])
        XCTAssertEqual(last.outboundPublishes.map(\.dup), [false])
        // Without a resumed Session (Clean Start), the grant's inflight list is not resent.
        var clean = ServerHarness()
        clean.receive(.connect(ServerHarness.connectPacket(cleanStart: true)))
        XCTAssertTrue(clean.handle(.authenticated(.accepted(SessionGrant(sessionPresent: true, inflight: inflight)))).outboundPublishes.isEmpty)
    }

    func testUnsentResends_StayInflightInTheSessionEnd() {
        let inflight = (1...3).map { InflightMessage(packetIdentifier: UInt16($0 * 10), outbound: OutboundMessage(id: UInt64($0), message: message("t"))) }
        var h = ServerHarness()
        var properties = Properties()
        properties.receiveMaximum = 1
        h.receive(.connect(ServerHarness.connectPacket(cleanStart: false, properties: properties)))
        h.handle(.authenticated(.accepted(SessionGrant(sessionPresent: true, inflight: inflight))))
        h.handle(.deliver(OutboundMessage(id: 4, message: message("t"))))
        let end = h.handle(.transportClosed).sessionEnd
        XCTAssertEqual(end?.inflight, inflight)
        XCTAssertEqual(end?.queued.map(\.id), [4])
    }

    func testPacketIdentifiers_WrapAndSkipThoseInUse() {
        var window = OutboundWindow(receiveMaximum: 10, queueLimit: 10)
        var seen: [UInt16] = []
        for _ in 0..<3 { seen.append(window.allocateIdentifier()!) }
        XCTAssertEqual(seen, [1, 2, 3])
        window.markInflight(OutboundWindow.Entry(outbound: OutboundMessage(id: 1, message: message("t")), packetIdentifier: 1, dup: false, sequence: 1), identifier: 1)
        for _ in 4...65_535 { _ = window.allocateIdentifier() }
        // Wrapped: 1 is in flight, so 2; never 0 [MQTT-2.2.1-4].
        XCTAssertEqual(window.allocateIdentifier(), 2)
        // Every identifier in flight: none to give.
        var full = OutboundWindow(receiveMaximum: 65_535, queueLimit: 0)
        for id in 1...65_535 {
            full.markInflight(OutboundWindow.Entry(outbound: OutboundMessage(id: 0, message: message("t")), packetIdentifier: UInt16(id), dup: false, sequence: id), identifier: UInt16(id))
        }
        XCTAssertNil(full.allocateIdentifier())
    }

    func testDeliver_OutsideConnected_IsDiscarded() {
        var h = ServerHarness()
        XCTAssertEqual(h.handle(.deliver(OutboundMessage(id: 5, message: message("t")))), [.discarded(messageID: 5, reason: .notConnected)])
        var closed = connected()
        closed.handle(.transportClosed)
        XCTAssertEqual(closed.handle(.deliver(OutboundMessage(id: 6, message: message("t")))), [.discarded(messageID: 6, reason: .notConnected)])
    }

    func testServerDisconnect_WhileConnected() {
        var h = connected()
        h.handle(.deliver(OutboundMessage(id: 1, message: message("t"))))
        let actions = h.handle(.disconnect(reasonCode: .sessionTakenOver, reasonString: "another connection"))
        var reason = Properties()
        reason.reasonString = "another connection"
        XCTAssertEqual(actions.sent, [.disconnect(DisconnectPacket(reasonCode: .sessionTakenOver, properties: reason))])
        XCTAssertEqual(actions.sessionEnd?.inflight.map(\.outbound.id), [1])
        XCTAssertEqual(actions.closeCode, .sessionTakenOver)
        // A code DISCONNECT cannot carry becomes 0x80.
        var other = connected()
        XCTAssertEqual(other.handle(.disconnect(reasonCode: .badUserNameOrPassword, reasonString: nil)).disconnect?.reasonCode, .unspecifiedError)
    }
}
