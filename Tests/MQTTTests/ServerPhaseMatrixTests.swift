import XCTest
@testable import MQTT

/// Every event in every phase: what each may do, and that nothing crashes or leaks out of place.
final class ServerPhaseMatrixTests: XCTestCase {
    private static let events: [(String, MQTTServerEvent)] = [
        ("connect", .received(MQTTPacket.connect(ServerHarness.connectPacket()).encoded())),
        ("publish", .received(MQTTPacket.publish(PublishPacket(topicName: "t", payload: [1], qos: .atLeastOnce, packetIdentifier: 1)).encoded())),
        ("pingreq", .received(MQTTPacket.pingreq.encoded())),
        ("garbage", .received([0x00, 0x01, 0x02])),
        ("empty", .received([])),
        ("accepted", .authenticated(.accepted(SessionGrant()))),
        ("refused", .authenticated(.refused(reasonCode: .notAuthorized, reasonString: nil))),
        ("publishAccepted", .publishAccepted(packetIdentifier: 1)),
        ("publishRefused", .publishRefused(packetIdentifier: 1, reasonCode: .notAuthorized, reasonString: "no")),
        ("subscribed", .subscribed(packetIdentifier: 1, reasonCodes: [.grantedQoS1])),
        ("unsubscribed", .unsubscribed(packetIdentifier: 1, reasonCodes: [.success])),
        ("deliver", .deliver(OutboundMessage(id: 1, message: message("t")))),
        ("deadlineFired", .deadlineFired),
        ("disconnect", .disconnect(reasonCode: .serverShuttingDown, reasonString: nil)),
        ("transportClosed", .transportClosed),
    ]

    private func harness(in phase: MQTTServerConnection.Phase) -> ServerHarness {
        var h = ServerHarness()
        switch phase {
        case .awaitingConnect: break
        case .authenticating: h.receive(.connect(ServerHarness.connectPacket()))
        case .connected: h = ServerHarness.connected()
        case .closing:
            h = ServerHarness.connected()
            h.receive(.disconnect(DisconnectPacket()))
        case .closed:
            h = ServerHarness.connected()
            h.handle(.transportClosed)
        }
        XCTAssertEqual(h.connection.phase, phase)
        return h
    }

    func testEveryEventInEveryPhase() {
        let phases: [MQTTServerConnection.Phase] = [.awaitingConnect, .authenticating, .connected, .closing, .closed]
        for phase in phases {
            for (name, event) in Self.events {
                var h = harness(in: phase)
                // Far enough on for every deadline to have passed.
                h.advance(seconds: 1_000)
                let actions = h.handle(event)
                let label = "\(name) in \(phase): \(actions)"
                let after = h.connection.phase
                // Shared invariants: at most one close, and it leaves the phase closing; a DISCONNECT or a
                // session end only once connected; a CONNACK only after a CONNECT.
                XCTAssertLessThanOrEqual(actions.filter { if case .close = $0 { return true } else { return false } }.count, 1, label)
                if actions.closeCode != nil { XCTAssertEqual(after, .closing, label) }
                if actions.disconnect != nil || actions.sessionEnd != nil { XCTAssertEqual(phase, .connected, label) }
                if actions.connack != nil { XCTAssertEqual(phase, .authenticating, label) }
                switch phase {
                case .closing, .closed:
                    // Nothing happens any more; a delivery is handed back.
                    if name == "deliver" {
                        XCTAssertEqual(actions, [.discarded(messageID: 1, reason: .notConnected)], label)
                    } else {
                        XCTAssertEqual(actions.filter { if case .armDeadline = $0 { return false } else { return true } }, [], label)
                    }
                    XCTAssertEqual(after, name == "transportClosed" ? .closed : phase, label)
                case .awaitingConnect:
                    switch name {
                    case "connect": XCTAssertEqual(after, .authenticating, label)
                    case "empty", "accepted", "refused", "publishAccepted", "publishRefused", "subscribed", "unsubscribed":
                        XCTAssertEqual(actions, [], label)
                        XCTAssertEqual(after, .awaitingConnect, label)
                    case "deliver": XCTAssertEqual(actions, [.discarded(messageID: 1, reason: .notConnected)], label)
                    case "transportClosed": XCTAssertEqual(after, .closed, label)
                    default: // publish, pingreq, garbage, deadlineFired, disconnect
                        XCTAssertEqual(after, .closing, label)
                        XCTAssertTrue(actions.sent.isEmpty, label) // never a CONNACK without a CONNECT
                    }
                case .authenticating:
                    switch name {
                    case "connect", "publish", "pingreq", "garbage", "empty", "publishAccepted", "publishRefused", "subscribed", "unsubscribed":
                        // Held unread until the CONNECT is answered (§3.1.4).
                        XCTAssertEqual(actions, [], label)
                        XCTAssertEqual(after, .authenticating, label)
                    case "accepted": XCTAssertEqual(after, .connected, label)
                    case "deliver": XCTAssertEqual(actions, [.discarded(messageID: 1, reason: .notConnected)], label)
                    case "transportClosed": XCTAssertEqual(after, .closed, label)
                    default: // refused, deadlineFired, disconnect: a failing CONNACK
                        XCTAssertTrue(actions.connack?.reasonCode.isFailure ?? false, label)
                        XCTAssertEqual(after, .closing, label)
                    }
                case .connected:
                    switch name {
                    case "connect", "garbage", "deadlineFired", "disconnect":
                        XCTAssertNotNil(actions.disconnect, label)
                        XCTAssertEqual(after, .closing, label)
                    case "transportClosed":
                        XCTAssertNotNil(actions.sessionEnd, label)
                        XCTAssertEqual(after, .closed, label)
                    case "publish": XCTAssertEqual(actions.publishes.count, 1, label)
                    case "pingreq": XCTAssertEqual(actions.sent, [.pingresp], label)
                    case "deliver": XCTAssertTrue(actions.contains(.delivered(messageID: 1, packetIdentifier: 1)), label)
                    default: // answers to nothing asked, and a late authentication result
                        XCTAssertEqual(actions, [], label)
                        XCTAssertEqual(after, .connected, label)
                    }
                }
            }
        }
    }

    func testEveryPacketTypeInEveryPhase() {
        for phase: MQTTServerConnection.Phase in [.awaitingConnect, .authenticating, .connected, .closing, .closed] {
            for packet in PacketCodecTests.samples {
                var h = harness(in: phase)
                let actions = h.receive(packet)
                let label = "\(packet.type) in \(phase)"
                switch phase {
                case .awaitingConnect where packet.type != .connect:
                    XCTAssertEqual(actions, [.close(.protocolError), .armDeadline(nil)], label)
                case .authenticating, .closing, .closed:
                    XCTAssertTrue(actions.sent.isEmpty, label)
                case .connected where [.connect, .connack, .suback, .unsuback, .pingresp, .pubrec, .pubrel, .pubcomp, .auth].contains(packet.type):
                    XCTAssertEqual(actions.disconnect?.reasonCode, .protocolError, label)
                default:
                    // Whatever happens, a connected client's packet (other than its own DISCONNECT) never
                    // closes without telling it why.
                    if let code = actions.closeCode, code.isFailure, phase == .connected, packet.type != .disconnect {
                        XCTAssertEqual(actions.disconnect?.reasonCode, code, label)
                    }
                }
            }
        }
    }
}
