import XCTest
@testable import MQTT

final class PacketCodecTests: XCTestCase {
    private func roundTrip(_ packet: MQTTPacket, file: StaticString = #filePath, line: UInt = #line) {
        let bytes = packet.encoded()
        XCTAssertEqual(try MQTTPacket.decode(bytes), packet, file: file, line: line)
        XCTAssertEqual(packet.encodedSize, bytes.count, file: file, line: line)
    }

    private func assertRefused(_ bytes: [UInt8], _ code: ReasonCode, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try MQTTPacket.decode(bytes), file: file, line: line) {
            XCTAssertEqual(($0 as? MQTTError)?.reasonCode, code, "\($0)", file: file, line: line)
        }
    }

    static var richProperties: Properties {
        var p = Properties()
        p.reasonString = "because"
        p.userProperties = [StringPair("k", "v"), StringPair("k", "v2")]
        return p
    }

    static let samples: [MQTTPacket] = {
        var connectProperties = Properties()
        connectProperties.sessionExpiryInterval = 3600
        connectProperties.receiveMaximum = 20
        connectProperties.maximumPacketSize = 65_536
        connectProperties.topicAliasMaximum = 8
        connectProperties.requestResponseInformation = true
        connectProperties.requestProblemInformation = false
        connectProperties.userProperties = [StringPair("a", "b")]
        connectProperties.authenticationMethod = "SCRAM-SHA-1"
        connectProperties.authenticationData = [1, 2, 3]
        var willProperties = Properties()
        willProperties.willDelayInterval = 30
        willProperties.payloadFormatIndicator = .utf8
        willProperties.messageExpiryInterval = 60
        willProperties.contentType = "text/plain"
        willProperties.responseTopic = "reply/to"
        willProperties.correlationData = [9]
        willProperties.userProperties = [StringPair("w", "x")]
        var connackProperties = Properties()
        connackProperties.sessionExpiryInterval = 60
        connackProperties.receiveMaximum = 10
        connackProperties.maximumQoS = .atLeastOnce
        connackProperties.retainAvailable = true
        connackProperties.maximumPacketSize = 1 << 20
        connackProperties.assignedClientIdentifier = "auto-1"
        connackProperties.topicAliasMaximum = 16
        connackProperties.reasonString = "ok"
        connackProperties.userProperties = [StringPair("s", "t")]
        connackProperties.wildcardSubscriptionAvailable = true
        connackProperties.subscriptionIdentifierAvailable = false
        connackProperties.sharedSubscriptionAvailable = false
        connackProperties.serverKeepAlive = 120
        connackProperties.responseInformation = "resp/"
        connackProperties.serverReference = "other:1883"
        connackProperties.authenticationMethod = "SCRAM-SHA-1"
        connackProperties.authenticationData = [4]
        var publishProperties = Properties()
        publishProperties.payloadFormatIndicator = .unspecified
        publishProperties.messageExpiryInterval = 10
        publishProperties.topicAlias = 3
        publishProperties.responseTopic = "r"
        publishProperties.correlationData = []
        publishProperties.userProperties = [StringPair("", "")]
        publishProperties.subscriptionIdentifiers = [1, 268_435_455, 1]
        publishProperties.contentType = "application/mls-message"
        var subscribeProperties = Properties()
        subscribeProperties.subscriptionIdentifier(7)
        subscribeProperties.userProperties = [StringPair("q", "r")]
        var disconnectProperties = richProperties
        disconnectProperties.sessionExpiryInterval = 0
        disconnectProperties.serverReference = "elsewhere"
        var authProperties = richProperties
        authProperties.authenticationMethod = "SCRAM-SHA-1"
        authProperties.authenticationData = [0xFF]
        return [
            .connect(ConnectPacket(clientIdentifier: "client", cleanStart: false, keepAlive: 30, properties: connectProperties,
                                   will: .init(topic: "will/topic", payload: [1, 2], qos: .atLeastOnce, retain: true, properties: willProperties),
                                   userName: "did:plc:abc", password: [0, 1, 255])),
            .connect(ConnectPacket(clientIdentifier: "")),
            .connect(ConnectPacket(clientIdentifier: "p", password: [])),
            .connect(ConnectPacket(clientIdentifier: "w", will: .init(topic: "t", payload: [], qos: .exactlyOnce))),
            .connack(ConnAckPacket(sessionPresent: true, reasonCode: .success, properties: connackProperties)),
            .connack(ConnAckPacket(reasonCode: .notAuthorized)),
            .publish(PublishPacket(topicName: "a/b", payload: [], qos: .atMostOnce)),
            .publish(PublishPacket(topicName: "", payload: [1, 2, 3], qos: .atLeastOnce, packetIdentifier: 65_535,
                                   retain: true, dup: true, properties: publishProperties)),
            .publish(PublishPacket(topicName: "big", payload: [UInt8](repeating: 0xA5, count: 200_000), qos: .exactlyOnce, packetIdentifier: 1)),
            .puback(PubAckPacket(packetIdentifier: 1)),
            .puback(PubAckPacket(packetIdentifier: 2, reasonCode: .notAuthorized)),
            .puback(PubAckPacket(packetIdentifier: 3, reasonCode: .noMatchingSubscribers, properties: richProperties)),
            .pubrec(PubAckPacket(packetIdentifier: 4, reasonCode: .quotaExceeded, properties: richProperties)),
            .pubrel(PubAckPacket(packetIdentifier: 5)),
            .pubrel(PubAckPacket(packetIdentifier: 6, reasonCode: .packetIdentifierNotFound, properties: richProperties)),
            .pubcomp(PubAckPacket(packetIdentifier: 7, reasonCode: .packetIdentifierNotFound)),
            .subscribe(SubscribePacket(packetIdentifier: 8, subscriptions: [
                .init(topicFilter: "a/+/c", options: SubscriptionOptions(maximumQoS: .exactlyOnce, noLocal: true, retainAsPublished: true, retainHandling: .doNotSend)),
                .init(topicFilter: "#", options: SubscriptionOptions(retainHandling: .sendOnNewSubscribe)),
            ], properties: subscribeProperties)),
            .suback(SubAckPacket(packetIdentifier: 8, reasonCodes: [.grantedQoS1, .notAuthorized, .grantedQoS0], properties: richProperties)),
            .unsubscribe(UnsubscribePacket(packetIdentifier: 9, topicFilters: ["a/+/c", "#"], properties: { var p = Properties(); p.userProperties = [StringPair("u", "v")]; return p }())),
            .unsuback(UnsubAckPacket(packetIdentifier: 9, reasonCodes: [.success, .noSubscriptionExisted], properties: richProperties)),
            .pingreq,
            .pingresp,
            .disconnect(DisconnectPacket()),
            .disconnect(DisconnectPacket(reasonCode: .disconnectWithWillMessage)),
            .disconnect(DisconnectPacket(reasonCode: .serverMoved, properties: disconnectProperties)),
            .auth(AuthPacket()),
            .auth(AuthPacket(reasonCode: .continueAuthentication, properties: authProperties)),
        ]
    }()

    func testEveryPacketType_RoundTrips() {
        for packet in Self.samples { roundTrip(packet) }
        XCTAssertEqual(Set(Self.samples.map(\.type)), Set(PacketType.allCases))
    }

    func testTruncatedPackets_AreMalformed() {
        // Every proper prefix of a body (with its Remaining Length rewritten to match) fails to decode:
        // either as truncated, or as what the shorter form means, never as the full packet.
        for packet in Self.samples where packet != .pingreq && packet != .pingresp {
            let bytes = packet.encoded()
            let frame = try! FrameSplitterTests.frame(of: bytes)
            for cut in stride(from: 0, to: frame.body.count, by: max(1, frame.body.count / 300)) {
                let truncated = MQTTFrame(firstByte: frame.firstByte, body: Array(frame.body[0..<cut]))
                if let decoded = try? MQTTPacket.decode(truncated) {
                    XCTAssertNotEqual(decoded, packet, "prefix of \(cut) decoded as the whole \(packet.type)")
                }
            }
        }
    }

    func testTrailingBytes_AreMalformed() {
        for packet in Self.samples {
            if case .publish = packet { continue } // the payload takes every byte
            let frame = try! FrameSplitterTests.frame(of: packet.encoded())
            var body = frame.body
            // Short forms (§3.4.2.1, §3.14.2.1) grow into valid longer forms; only full ones are checked.
            let shortForm: Bool
            switch packet {
            case .puback(let p), .pubrec(let p), .pubrel(let p), .pubcomp(let p): shortForm = p.properties.isEmpty
            case .disconnect(let p): shortForm = p.properties.isEmpty
            default: shortForm = false
            }
            if shortForm || body.isEmpty || packet.type == .suback || packet.type == .unsuback || packet.type == .subscribe || packet.type == .unsubscribe {
                continue // a longer list, or the long form of a short packet, is another valid packet
            }
            body.append(0x00)
            XCTAssertThrowsError(try MQTTPacket.decode(MQTTFrame(firstByte: frame.firstByte, body: body)), "\(packet.type)")
        }
    }

    // MARK: - Byte-exact encodings from the spec's examples

    func testConnect_SpecVariableHeaderExample() throws {
        // MQTT 5.0 §3.1.2.12 Figure 3-6: "MQTT", version 5, flags 0xCE (User Name, Password, Will QoS 1,
        // Will, Clean Start), Keep Alive 10, properties: Session Expiry Interval 10.
        var properties = Properties()
        properties.sessionExpiryInterval = 10
        let packet = ConnectPacket(clientIdentifier: "c", cleanStart: true, keepAlive: 10, properties: properties,
                                   will: .init(topic: "w", payload: [], qos: .atLeastOnce), userName: "u", password: [0x70])
        var writer = MQTTWriter()
        packet.encodeBody(into: &writer)
        let header: [UInt8] = [0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x05, 0xCE, 0x00, 0x0A, 0x05, 0x11, 0x00, 0x00, 0x00, 0x0A]
        XCTAssertEqual(Array(writer.bytes.prefix(header.count)), header)
        XCTAssertEqual(try MQTTPacket.decode(MQTTPacket.connect(packet).encoded()), .connect(packet))
    }

    func testPublish_SpecVariableHeaderExample() throws {
        // MQTT 5.0 §3.3.2.3 Figure 3-9: Topic Name "a/b", Packet Identifier 10, no properties.
        let packet = MQTTPacket.publish(PublishPacket(topicName: "a/b", payload: [], qos: .atLeastOnce, packetIdentifier: 10))
        XCTAssertEqual(packet.encoded(), [0x32, 0x08, 0x00, 0x03, 0x61, 0x2F, 0x62, 0x00, 0x0A, 0x00])
    }

    func testSubscribe_SpecPayloadExample() throws {
        // MQTT 5.0 §3.8.2 Figure 3-19 and §3.8.3 Figure 3-21: Packet Identifier 10, no properties, "a/b"
        // at QoS 1 and "c/d" at QoS 2.
        let packet = MQTTPacket.subscribe(SubscribePacket(packetIdentifier: 10, subscriptions: [
            .init(topicFilter: "a/b", options: SubscriptionOptions(maximumQoS: .atLeastOnce)),
            .init(topicFilter: "c/d", options: SubscriptionOptions(maximumQoS: .exactlyOnce)),
        ]))
        XCTAssertEqual(packet.encoded(), [0x82, 0x0F, 0x00, 0x0A, 0x00,
                                          0x00, 0x03, 0x61, 0x2F, 0x62, 0x01, 0x00, 0x03, 0x63, 0x2F, 0x64, 0x02])
    }

    func testUnsubscribe_SpecPayloadExample() throws {
        // MQTT 5.0 §3.10.3 Figure 3.30: "a/b" and "c/d".
        let packet = MQTTPacket.unsubscribe(UnsubscribePacket(packetIdentifier: 10, topicFilters: ["a/b", "c/d"]))
        XCTAssertEqual(packet.encoded(), [0xA2, 0x0D, 0x00, 0x0A, 0x00, 0x00, 0x03, 0x61, 0x2F, 0x62, 0x00, 0x03, 0x63, 0x2F, 0x64])
    }

    func testShortForms_AndFixedHeaders() throws {
        // MQTT 5.0 §3.12.1, §3.13.1: PINGREQ and PINGRESP are two bytes.
        XCTAssertEqual(MQTTPacket.pingreq.encoded(), [0xC0, 0x00])
        XCTAssertEqual(MQTTPacket.pingresp.encoded(), [0xD0, 0x00])
        // MQTT 5.0 §3.14.2.1, §3.15.2.1: Success without properties has a Remaining Length of 0.
        XCTAssertEqual(MQTTPacket.disconnect(DisconnectPacket()).encoded(), [0xE0, 0x00])
        XCTAssertEqual(MQTTPacket.auth(AuthPacket()).encoded(), [0xF0, 0x00])
        // MQTT 5.0 §3.4.2.1: Success without properties: Remaining Length 2; a code alone: 3.
        XCTAssertEqual(MQTTPacket.puback(PubAckPacket(packetIdentifier: 10)).encoded(), [0x40, 0x02, 0x00, 0x0A])
        XCTAssertEqual(MQTTPacket.puback(PubAckPacket(packetIdentifier: 10, reasonCode: .notAuthorized)).encoded(), [0x40, 0x03, 0x00, 0x0A, 0x87])
        // MQTT 5.0 §3.6.1: PUBREL's flags are 0010.
        XCTAssertEqual(MQTTPacket.pubrel(PubAckPacket(packetIdentifier: 1)).encoded(), [0x62, 0x02, 0x00, 0x01])
        // DISCONNECT with a code and no Property Length (§3.14.2.2.1: under 2, no properties).
        XCTAssertEqual(try MQTTPacket.decode([0xE0, 0x01, 0x8E]), .disconnect(DisconnectPacket(reasonCode: .sessionTakenOver)))
        // PUBACK with a code and no Property Length.
        XCTAssertEqual(try MQTTPacket.decode([0x40, 0x03, 0x00, 0x01, 0x10]), .puback(PubAckPacket(packetIdentifier: 1, reasonCode: .noMatchingSubscribers)))
        // CONNACK as this Server sends it: flags, code, properties.
        XCTAssertEqual(MQTTPacket.connack(ConnAckPacket(reasonCode: .badUserNameOrPassword)).encoded(), [0x20, 0x03, 0x00, 0x86, 0x00])
    }

    // MARK: - Malformed and Protocol Error cases named in the spec

    func testReservedFlags_AreMalformed_ForEveryType() {
        // MQTT 5.0 §2.1.3 [MQTT-2.1.3-1] Table 2-2.
        for type in PacketType.allCases where type != .publish {
            let required = type.requiredFlags!
            for flags: UInt8 in 0...15 where flags != required {
                assertRefused([type.rawValue << 4 | flags, 0x00], .malformedPacket)
            }
        }
        assertRefused([0x00, 0x00], .malformedPacket) // reserved type 0
    }

    func testPublishFlags() {
        // MQTT 5.0 §3.3.1.2 [MQTT-3.3.1-4]: QoS 3.
        assertRefused([0x36, 0x05, 0x00, 0x01, 0x61, 0x00, 0x01], .malformedPacket)
        // MQTT 5.0 §3.3.1.1 [MQTT-3.3.1-2]: DUP at QoS 0.
        assertRefused([0x38, 0x04, 0x00, 0x01, 0x61, 0x00], .malformedPacket)
        // Packet Identifier 0 at QoS 1.
        assertRefused([0x32, 0x06, 0x00, 0x01, 0x61, 0x00, 0x00, 0x00], .protocolError)
    }

    func testConnect_MalformedFlagsAndFields() {
        func connect(flags: UInt8, payload: [UInt8] = [0x00, 0x01, 0x63]) -> [UInt8] {
            let body: [UInt8] = [0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x05, flags, 0x00, 0x3C, 0x00] + payload
            return [0x10, UInt8(body.count)] + body
        }
        XCTAssertNoThrow(try MQTTPacket.decode(connect(flags: 0x02)))
        assertRefused(connect(flags: 0x03), .malformedPacket)         // [MQTT-3.1.2-3] reserved bit
        assertRefused(connect(flags: 0x08), .malformedPacket)         // [MQTT-3.1.2-11] Will QoS without Will
        assertRefused(connect(flags: 0x20), .malformedPacket)         // [MQTT-3.1.2-13] Will Retain without Will
        assertRefused(connect(flags: 0x1C, payload: [0x00, 0x01, 0x63, 0x00, 0x00, 0x01, 0x74, 0x00, 0x00]), .malformedPacket) // Will QoS 3
        assertRefused(connect(flags: 0x80), .malformedPacket)         // User Name flag, no User Name
        assertRefused(connect(flags: 0x40), .malformedPacket)         // Password flag, no Password
        assertRefused(connect(flags: 0x02, payload: [0x00, 0x01, 0x63, 0x00]), .malformedPacket) // trailing byte
        assertRefused(connect(flags: 0x02, payload: [0x00, 0x02, 0xC0, 0x80]), .malformedPacket) // overlong Client ID
        // §3.1.2.1, §3.1.2.2: another protocol or version.
        XCTAssertThrowsError(try MQTTPacket.decode([0x10, 0x0D, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x3C, 0x00, 0x01, 0x63])) {
            XCTAssertEqual($0 as? MQTTError, .unsupportedProtocolVersion(name: "MQTT", level: 4))
        }
        XCTAssertThrowsError(try MQTTPacket.decode([0x10, 0x08, 0x00, 0x04, 0x48, 0x54, 0x54, 0x50, 0x05, 0x02])) {
            XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .unsupportedProtocolVersion)
        }
    }

    func testConnect_AuthenticationDataWithoutMethod_IsProtocolError() {
        var properties = Properties()
        properties.authenticationData = [1]
        let bytes = MQTTPacket.connect(ConnectPacket(clientIdentifier: "c", properties: properties)).encoded()
        assertRefused(bytes, .protocolError)
    }

    func testSubscribeOptionsAndPayload() {
        func subscribe(_ options: UInt8) -> [UInt8] { [0x82, 0x07, 0x00, 0x01, 0x00, 0x00, 0x01, 0x61, options] }
        XCTAssertNoThrow(try MQTTPacket.decode(subscribe(0x2E)))
        assertRefused(subscribe(0x40), .malformedPacket) // [MQTT-3.8.3-5] reserved bits
        assertRefused(subscribe(0x80), .malformedPacket)
        assertRefused(subscribe(0x03), .protocolError)   // Maximum QoS 3
        assertRefused(subscribe(0x30), .protocolError)   // Retain Handling 3
        assertRefused([0x82, 0x03, 0x00, 0x01, 0x00], .protocolError)       // [MQTT-3.8.3-2] no filter
        assertRefused([0xA2, 0x03, 0x00, 0x01, 0x00], .protocolError)       // [MQTT-3.10.3-2] no filter
        assertRefused([0x82, 0x06, 0x00, 0x01, 0x00, 0x00, 0x01, 0x61], .malformedPacket) // filter without options
        assertRefused([0x82, 0x07, 0x00, 0x00, 0x00, 0x00, 0x01, 0x61, 0x00], .protocolError) // Packet Identifier 0
    }

    func testReasonCodes_OutsideTheirPacketsSet_AreMalformed() {
        assertRefused([0x40, 0x03, 0x00, 0x01, 0x04], .malformedPacket)   // 0x04 is not a PUBACK code
        assertRefused([0x62, 0x03, 0x00, 0x01, 0x87], .malformedPacket)   // nor 0x87 a PUBREL code
        assertRefused([0xE0, 0x01, 0x84], .malformedPacket)               // nor 0x84 a DISCONNECT code
        assertRefused([0x90, 0x04, 0x00, 0x01, 0x00, 0x11], .malformedPacket) // nor 0x11 a SUBACK code
        assertRefused([0xB0, 0x04, 0x00, 0x01, 0x00, 0x02], .malformedPacket) // nor 0x02 an UNSUBACK code
        assertRefused([0xF0, 0x02, 0x04, 0x00], .malformedPacket)
        assertRefused([0x20, 0x03, 0x00, 0x8E, 0x00], .malformedPacket)   // 0x8E is not a CONNACK code
        assertRefused([0x20, 0x03, 0x02, 0x00, 0x00], .malformedPacket)   // CONNACK reserved flag
        assertRefused([0x20, 0x03, 0x01, 0x87, 0x00], .protocolError)     // [MQTT-3.2.2-6]
        assertRefused([0xF0, 0x02, 0x18, 0x00], .protocolError)           // AUTH without Authentication Method
        assertRefused([0xC0, 0x01, 0x00], .malformedPacket)               // PINGREQ with a body
    }

    func testRemainingLength_MalformedOrBeyondBody() {
        assertRefused([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], .malformedPacket) // five-byte Remaining Length
        assertRefused([0xC0, 0x80, 0x00], .malformedPacket)                   // not minimal
        assertRefused([0x30, 0x0A, 0x00, 0x01, 0x61], .malformedPacket)       // shorter than it says
    }
}

extension Properties {
    fileprivate mutating func subscriptionIdentifier(_ value: Int) { subscriptionIdentifiers = [value] }
}
