@testable import DeliveryService
import Dispatch
@testable import MQTT
import TestSupport
import XCTest

/// The Session's subscription index and a SUBSCRIBE's work list, as values (no sockets, no store).
final class RelaySubscriptionsTests: XCTestCase {
    let group = String(repeating: "ab", count: 16)

    private func add(_ filter: String, qos: UInt8 = 1, noLocal: Bool = false, to subscriptions: inout RelaySubscriptions) throws -> Bool {
        let scope = try XCTUnwrap(RelayFilterScope(try TopicFilter(filter)))
        return subscriptions.insert(RelaySubscription(filter: filter, qos: qos, noLocal: noLocal), scope: scope)
    }

    func testMatching_ByTopicAndGroupWildcard_MergesQoSAndNoLocal() throws {
        var subscriptions = RelaySubscriptions()
        XCTAssertTrue(try add("relay/g/\(group)/m", qos: 0, noLocal: true, to: &subscriptions))
        XCTAssertTrue(try add("relay/g/\(group)/#", qos: 1, noLocal: false, to: &subscriptions))
        XCTAssertFalse(try add("relay/g/\(group)/#", qos: 1, noLocal: true, to: &subscriptions), "the same filter replaces")
        let messages = try XCTUnwrap(subscriptions.matching(.groupMessages(convoID: group)))
        XCTAssertEqual(messages.qos, 1)
        XCTAssertTrue(messages.noLocal, "both ask for No Local now")
        XCTAssertEqual(subscriptions.matching(.groupInfo(convoID: group))?.filter, "relay/g/\(group)/#")
        XCTAssertNil(subscriptions.matching(.groupInfo(convoID: "cd")))
        XCTAssertNil(subscriptions.matching(.keyPackages(clientID: String(repeating: "0", count: 32))))
        XCTAssertEqual(subscriptions.count, 2)
    }

    func testRemoval_OneFilter_AndAllOfAConversation() throws {
        var subscriptions = RelaySubscriptions()
        let client = String(repeating: "1", count: 32)
        _ = try add("relay/g/\(group)/m", to: &subscriptions)
        _ = try add("relay/g/\(group)/i", to: &subscriptions)
        _ = try add("relay/k/\(client)", to: &subscriptions)
        XCTAssertEqual(subscriptions.remove("relay/g/\(group)/m"), .topic(.groupMessages(convoID: group)))
        XCTAssertNil(subscriptions.remove("relay/g/\(group)/m"))
        XCTAssertTrue(subscriptions.hasAny(of: group))
        subscriptions.removeAll(of: group)
        XCTAssertFalse(subscriptions.hasAny(of: group))
        XCTAssertNil(subscriptions.matching(.groupInfo(convoID: group)))
        XCTAssertEqual(subscriptions.all.map(\.filter), ["relay/k/\(client)"])
    }

    /// Repeated filters are examined once, with the last copy's options, and each copy answered alike.
    func testSubscribeWork_MergesRepeatedFilters() throws {
        let a = SubscriptionRequest(topicFilter: try TopicFilter("relay/g/\(group)/m"), options: SubscriptionOptions(maximumQoS: .atMostOnce))
        let b = SubscriptionRequest(topicFilter: try TopicFilter("relay/g/\(group)/i"), options: SubscriptionOptions(maximumQoS: .atLeastOnce))
        var last = a
        last.options.maximumQoS = .atLeastOnce
        var work = RelaySubscribeWork(packetIdentifier: 4, requests: [a, b, a, last])
        let first = try XCTUnwrap(work.take())
        XCTAssertEqual(first, last, "the last copy's options")
        work.answer(first, with: .grantedQoS1)
        XCTAssertFalse(work.isDone)
        let second = try XCTUnwrap(work.take())
        XCTAssertEqual(second, b)
        work.answer(second, with: .notAuthorized)
        XCTAssertNil(work.take())
        XCTAssertTrue(work.isDone)
        XCTAssertEqual(work.codes, [.grantedQoS1, .notAuthorized, .grantedQoS1, .grantedQoS1])
    }

    /// The relay workers' two lanes: an urgent job (a new connection's CONNECT) is taken before the
    /// others queued, and then in turn with them, so neither lane holds every thread.
    func testWorkers_TakeUrgentJobsInTurnWithTheOthers() {
        let workers = EventWorkers(threads: 1, name: "lanes")
        workers.start()
        defer { workers.stop() }
        let gate = DispatchSemaphore(value: 0), busy = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let order = Locked<[String]>([])
        workers.submit {
            busy.signal()
            gate.wait()
        }
        XCTAssertEqual(busy.wait(timeout: .now() + 10), .success, "the one thread is busy: what follows queues")
        for name in ["n1", "n2", "n3"] { workers.submit { order.withLock { $0.append(name) } } }
        for name in ["u1", "u2"] { workers.submit(urgent: true) { order.withLock { $0.append(name) } } }
        workers.submit { done.signal() }
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.value, ["u1", "n1", "u2", "n2", "n3"])
    }
}
