import XCTest
@testable import MQTT

/// Bytes real clients sent (captured from mosquitto_pub/mosquitto_sub 2.0.11 and paho-mqtt 2.2.0 with
/// `-V 5` / MQTTv5 against a recorder; see Fixtures/README.md), decoded by our codec and accepted by
/// the server state machine.
final class FixtureTests: XCTestCase {
    static func fixture(_ path: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(path)")
        return Array(try Data(contentsOf: url))
    }

    private func packet(_ path: String) throws -> MQTTPacket {
        let bytes = try Self.fixture(path)
        let packet = try MQTTPacket.decode(bytes)
        // Our encoder writes the same packet back: the same size, and the same bytes but for the order of
        // properties, which has no significance (§2.2.2.2) and which we write by identifier.
        XCTAssertEqual(packet.encoded().count, bytes.count, path)
        XCTAssertEqual(try MQTTPacket.decode(packet.encoded()), packet, path)
        return packet
    }

    func testMosquittoPub() throws {
        guard case .connect(let connect) = try packet("mosquitto/pub-01-connect.bin") else { return XCTFail() }
        XCTAssertEqual(connect.clientIdentifier, "0123456789abcdef0123456789abcdef")
        XCTAssertEqual(connect.userName, "did:plc:ewvi7nxzyoun6zhxrhs64oiz")
        XCTAssertEqual(connect.password, Array("eyJhbGciOiJFUzI1NksifQ.e30.c2ln".utf8))
        XCTAssertTrue(connect.cleanStart)
        XCTAssertEqual(connect.keepAlive, 60)
        XCTAssertEqual(connect.properties.sessionExpiryInterval, 3600)
        XCTAssertEqual(connect.properties.receiveMaximum, 20)
        guard case .publish(let publish) = try packet("mosquitto/pub-02-publish.bin") else { return XCTFail() }
        XCTAssertEqual(publish.topicName, "relay/g/6f2a/m")
        XCTAssertEqual(publish.qos, .atLeastOnce)
        XCTAssertEqual(publish.packetIdentifier, 1)
        XCTAssertEqual(publish.payload, Array("MLS message bytes".utf8))
        XCTAssertEqual(publish.properties.userProperties, [StringPair("relay", "v1")])
        XCTAssertEqual(publish.properties.contentType, "application/mls-message")
        XCTAssertEqual(try packet("mosquitto/pub-03-disconnect.bin"), .disconnect(DisconnectPacket()))
    }

    func testMosquittoSub() throws {
        guard case .connect(let connect) = try packet("mosquitto/sub-01-connect.bin") else { return XCTFail() }
        XCTAssertFalse(connect.cleanStart)
        XCTAssertEqual(connect.properties.sessionExpiryInterval, UInt32.max)
        XCTAssertEqual(connect.properties.receiveMaximum, 1)
        guard case .subscribe(let subscribe) = try packet("mosquitto/sub-02-subscribe.bin") else { return XCTFail() }
        XCTAssertEqual(subscribe.subscriptions.map(\.topicFilter), ["relay/g/+/m", "relay/k/#"])
        XCTAssertEqual(subscribe.subscriptions.map(\.options.maximumQoS), [.atLeastOnce, .atLeastOnce])
        XCTAssertEqual(subscribe.properties.userProperties, [StringPair("a", "b")])
    }

    func testMosquittoWillAndTopicAlias() throws {
        guard case .connect(let connect) = try packet("mosquitto/will-01-connect.bin"), let will = connect.will else { return XCTFail() }
        XCTAssertEqual(will.topic, "relay/u/did:plc:x")
        XCTAssertEqual(will.payload, Array("bye".utf8))
        XCTAssertEqual(will.qos, .atLeastOnce)
        XCTAssertTrue(will.retain)
        XCTAssertEqual(will.properties.willDelayInterval, 30)
        XCTAssertEqual(will.properties.contentType, "text/plain")
        guard case .publish(let publish) = try packet("mosquitto/will-02-publish.bin") else { return XCTFail() }
        XCTAssertEqual(publish.properties.topicAlias, 3)
        XCTAssertTrue(publish.retain)
        XCTAssertEqual(publish.payload, [])
    }

    func testPaho() throws {
        guard case .connect(let connect) = try packet("paho/01-connect.bin") else { return XCTFail() }
        XCTAssertEqual(connect.clientIdentifier, "a1b2c3d4e5f60718293a4b5c6d7e8f90")
        XCTAssertEqual(connect.userName, "did:web:example.com")
        XCTAssertFalse(connect.cleanStart)
        XCTAssertEqual(connect.keepAlive, 30)
        XCTAssertEqual(connect.properties.sessionExpiryInterval, 600)
        XCTAssertEqual(connect.properties.topicAliasMaximum, 10)
        XCTAssertEqual(connect.properties.maximumPacketSize, 1_048_576)
        guard case .subscribe(let subscribe) = try packet("paho/02-subscribe.bin") else { return XCTFail() }
        XCTAssertEqual(subscribe.subscriptions.first?.options,
                       SubscriptionOptions(maximumQoS: .atLeastOnce, noLocal: true, retainAsPublished: true, retainHandling: .sendOnNewSubscribe))
        guard case .publish(let publish) = try packet("paho/03-publish.bin") else { return XCTFail() }
        XCTAssertEqual(publish.payload, Array(0..<40))
        XCTAssertTrue(publish.retain)
        XCTAssertEqual(publish.properties.messageExpiryInterval, 120)
        XCTAssertEqual(publish.properties.responseTopic, "relay/u/reply")
        XCTAssertEqual(publish.properties.correlationData, [1, 2])
        guard case .unsubscribe(let unsubscribe) = try packet("paho/04-unsubscribe.bin") else { return XCTFail() }
        XCTAssertEqual(unsubscribe.topicFilters, ["relay/w/a1b2c3d4e5f60718293a4b5c6d7e8f90"])
    }

    /// Each client's whole session, as one byte stream, through the server state machine.
    func testRecordedSessions_DriveTheServer() throws {
        let sessions: [[String]] = [
            ["mosquitto/pub-01-connect.bin", "mosquitto/pub-02-publish.bin", "mosquitto/pub-03-disconnect.bin"],
            ["mosquitto/sub-01-connect.bin", "mosquitto/sub-02-subscribe.bin", "mosquitto/sub-03-disconnect.bin"],
            ["mosquitto/will-01-connect.bin", "mosquitto/will-02-publish.bin", "mosquitto/will-03-disconnect.bin"],
            ["paho/01-connect.bin", "paho/02-subscribe.bin", "paho/03-publish.bin", "paho/04-unsubscribe.bin", "paho/05-disconnect.bin"],
        ]
        for files in sessions {
            let stream = try files.flatMap { try Self.fixture($0) }
            var (connection, _) = MQTTServerConnection.open(now: 0)
            let first = connection.handle(.received(stream), now: 1)
            guard case .authenticate = first.first else { return XCTFail("\(files[0]): \(first)") }
            let actions = connection.handle(.authenticated(.accepted(SessionGrant())), now: 2)
            XCTAssertFalse(actions.contains { if case .close(let code) = $0 { return code.isFailure } else { return false } }, "\(actions)")
            XCTAssertTrue(actions.contains(.close(.normalDisconnection)), "\(files[0])")
            let publishes = actions.filter { if case .publish = $0 { return true } else { return false } }
            XCTAssertEqual(publishes.count, files.filter { $0.contains("publish") }.count)
        }
    }
}
