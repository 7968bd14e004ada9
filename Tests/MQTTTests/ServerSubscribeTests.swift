import XCTest
@testable import MQTT

final class ServerSubscribeTests: XCTestCase {
    private func subscribe(_ id: UInt16, _ filters: [String], qos: QoS = .atLeastOnce, properties: Properties = Properties()) -> MQTTPacket {
        .subscribe(SubscribePacket(packetIdentifier: id, subscriptions: filters.map {
            .init(topicFilter: $0, options: SubscriptionOptions(maximumQoS: qos, noLocal: true))
        }, properties: properties))
    }

    func testSubscribe_AsksTheService_AndAnswersInOrder() throws {
        var h = ServerHarness.connected()
        let actions = h.receive(subscribe(3, ["relay/g/+/m", "relay/k/#"]))
        let options = SubscriptionOptions(maximumQoS: .atLeastOnce, noLocal: true)
        XCTAssertEqual(actions, [.subscribe(packetIdentifier: 3, requests: [
            SubscriptionRequest(topicFilter: try TopicFilter("relay/g/+/m"), options: options),
            SubscriptionRequest(topicFilter: try TopicFilter("relay/k/#"), options: options),
        ])])
        XCTAssertEqual(h.handle(.subscribed(packetIdentifier: 3, reasonCodes: [.grantedQoS1, .notAuthorized])),
                       [.send(.suback(SubAckPacket(packetIdentifier: 3, reasonCodes: [.grantedQoS1, .notAuthorized])))])
        XCTAssertEqual(h.handle(.subscribed(packetIdentifier: 3, reasonCodes: [.grantedQoS1])), []) // answered already
    }

    func testInvalidFilters_FailAlone_WithTopicFilterInvalid() throws {
        var h = ServerHarness.connected()
        let actions = h.receive(subscribe(4, ["a/#/b", "ok/+", "x+"]))
        XCTAssertEqual(actions, [.subscribe(packetIdentifier: 4, requests: [
            SubscriptionRequest(topicFilter: try TopicFilter("ok/+"), options: SubscriptionOptions(maximumQoS: .atLeastOnce, noLocal: true)),
        ])])
        XCTAssertEqual(h.handle(.subscribed(packetIdentifier: 4, reasonCodes: [.grantedQoS0])).sent,
                       [.suback(SubAckPacket(packetIdentifier: 4, reasonCodes: [.topicFilterInvalid, .grantedQoS0, .topicFilterInvalid]))])
        // All invalid: answered at once, the service is not asked.
        XCTAssertEqual(h.receive(subscribe(5, ["#/x"])), [.send(.suback(SubAckPacket(packetIdentifier: 5, reasonCodes: [.topicFilterInvalid])))])
    }

    /// A SUBSCRIBE or UNSUBSCRIBE of more filters than `maximumTopicFilters` is counted from its
    /// lengths and answered at once, every filter refused (0x97 in SUBACK, 0x83 in UNSUBACK), none
    /// decoded (an invalid one among them changes nothing) and the service not asked; at the limit the
    /// packet goes to the service as usual.
    func testTooManyFilters_AreRefusedWhole_BeforeTheyAreDecoded() throws {
        var configuration = MQTTServerConfiguration()
        configuration.maximumTopicFilters = 3
        var h = ServerHarness.connected(configuration: configuration)
        XCTAssertEqual(h.receive(subscribe(7, ["a", "b", "#/bad", "d"])),
                       [.send(.suback(SubAckPacket(packetIdentifier: 7, reasonCodes: Array(repeating: .quotaExceeded, count: 4),
                                                   properties: h.connection.reasonProperties("more than 3 Topic Filters in one packet"))))])
        XCTAssertEqual(h.receive(.unsubscribe(UnsubscribePacket(packetIdentifier: 8, topicFilters: ["a", "b", "c", "d", "e"]))).sent,
                       [.unsuback(UnsubAckPacket(packetIdentifier: 8, reasonCodes: Array(repeating: .implementationSpecificError, count: 5),
                                                 properties: h.connection.reasonProperties("more than 3 Topic Filters in one packet")))])
        let atTheLimit = h.receive(subscribe(9, ["a", "a", "c"]))
        XCTAssertEqual(atTheLimit.count, 1)
        guard case .subscribe(9, let requests)? = atTheLimit.first else { return XCTFail("\(atTheLimit)") }
        XCTAssertEqual(requests.count, 3)
        // An identifier still awaiting the service's answer is in use, whatever the packet's size.
        XCTAssertEqual(h.receive(subscribe(9, ["a", "b", "c", "d"])).disconnect?.reasonCode, .protocolError)
    }

    func testServiceAnswers_AreKeptWithinSubscribeReasonCodes() {
        var h = ServerHarness.connected()
        h.receive(subscribe(6, ["a", "b", "c", "d"], qos: .exactlyOnce))
        // QoS 2 granted becomes 1 (our Maximum QoS); a non-SUBACK code and a missing one become 0x80.
        XCTAssertEqual(h.handle(.subscribed(packetIdentifier: 6, reasonCodes: [.grantedQoS2, .grantedQoS0, .sessionTakenOver])).sent,
                       [.suback(SubAckPacket(packetIdentifier: 6, reasonCodes: [.grantedQoS1, .grantedQoS0, .unspecifiedError, .unspecifiedError]))])
    }

    func testSharedSubscriptions_AndSubscriptionIdentifiers_AreRefused() {
        // MQTT 5.0 §3.2.2.3.13: announced unavailable, so a Protocol Error with DISCONNECT 0x9E.
        var shared = ServerHarness.connected()
        let actions = shared.receive(subscribe(1, ["relay/k/#", "$share/group/relay/g/+/m"]))
        XCTAssertEqual(actions.disconnect?.reasonCode, .sharedSubscriptionsNotSupported)
        XCTAssertFalse(actions.contains { if case .subscribe = $0 { return true } else { return false } })
        // MQTT 5.0 §3.2.2.3.12: DISCONNECT 0xA1.
        var identified = ServerHarness.connected()
        var properties = Properties()
        properties.subscriptionIdentifiers = [1]
        XCTAssertEqual(identified.receive(subscribe(1, ["a"], properties: properties)).disconnect?.reasonCode, .subscriptionIdentifiersNotSupported)
        // A malformed shared filter is just an invalid filter.
        var malformedShare = ServerHarness.connected()
        XCTAssertEqual(malformedShare.receive(subscribe(2, ["$share//x"])).sent,
                       [.suback(SubAckPacket(packetIdentifier: 2, reasonCodes: [.topicFilterInvalid]))])
    }

    func testUnsubscribe() throws {
        var h = ServerHarness.connected()
        let actions = h.receive(.unsubscribe(UnsubscribePacket(packetIdentifier: 8, topicFilters: ["relay/g/+/m", "bad#", "$share/g/x"])))
        XCTAssertEqual(actions, [.unsubscribe(packetIdentifier: 8, topicFilters: [try TopicFilter("relay/g/+/m"), try TopicFilter("$share/g/x")])])
        XCTAssertEqual(h.handle(.unsubscribed(packetIdentifier: 8, reasonCodes: [.success, .noSubscriptionExisted])).sent,
                       [.unsuback(UnsubAckPacket(packetIdentifier: 8, reasonCodes: [.success, .topicFilterInvalid, .noSubscriptionExisted]))])
        XCTAssertEqual(h.receive(.unsubscribe(UnsubscribePacket(packetIdentifier: 9, topicFilters: ["#/"]))).sent,
                       [.unsuback(UnsubAckPacket(packetIdentifier: 9, reasonCodes: [.topicFilterInvalid]))])
        h.receive(.unsubscribe(UnsubscribePacket(packetIdentifier: 10, topicFilters: ["a"])))
        XCTAssertEqual(h.handle(.unsubscribed(packetIdentifier: 10, reasonCodes: [.grantedQoS1])).sent,
                       [.unsuback(UnsubAckPacket(packetIdentifier: 10, reasonCodes: [.unspecifiedError]))])
    }
}
