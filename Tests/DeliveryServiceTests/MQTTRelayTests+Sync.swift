import Basics
@testable import DeliveryService
import DeliveryStore
import Foundation
import MLS
import MQTT
import MQTTClient
import Primitives
import XCTest

/// Sync barriers on relay/s/{client_id} (docs/mqtt.md, "Sync"): the nonce comes back only after
/// everything committed before the sync, even what the event hub never announced and what the
/// event cache holds only a prefix of.
extension MQTTRelayTests {
    /// A store on the service's database whose NOTIFYs go to a channel nobody listens on: what it
    /// appends is in the log, but the hub never hears of it and never reads or caches it. Only a
    /// read of the log itself finds it.
    private func unannouncedStore(_ service: ServiceHarness) -> DeliveryStore {
        DeliveryStore(database: service.app.database, configuration: .init(eventChannel: "relay_sync_test_unheard"))
    }

    /// Alice's messages stored through `store`, as sendMessage stores them.
    private func append(_ texts: [String], from alice: RelayTestUser, in convoID: String, through store: DeliveryStore) throws {
        let did = try DID(alice.did)
        for text in texts {
            let message = try alice.encrypt(text, in: convoID)
            let epoch = Int64(try XCTUnwrap(alice.user.groups[convoID]).epoch)
            let outcome = store.appendMessages([BatchedMessage(NewMessage(convoID: convoID, msgID: Hex.encode(SHA256Test.hash(message)),
                                                                          epoch: epoch, senderDID: did, content: .ciphertext(message)))])
            XCTAssertNoThrow(try outcome[0].result.get())
        }
    }

    private func texts(_ messages: [MQTTClient.Message], of user: RelayTestUser, in convoID: String) throws -> [String] {
        try messages.filter { $0.topic == "relay/g/\(convoID)/m" }.compactMap { try user.apply($0.payload, in: convoID) }
    }

    func testSync_AnswersAfterEverythingCommittedBefore_EvenWhatTheHubNeverAnnounced() throws {
        let service = try service
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        try bob.connect(cleanStart: true, expiry: 300)
        let convoID = try makeGroup(alice, [bob])
        let unheard = unannouncedStore(service)

        // Attached: three messages the hub never announces. Without the barrier's log read nothing
        // would ever deliver them on this connection.
        try append(["one", "two", "three"], from: alice, in: convoID, through: unheard)
        XCTAssertEqual(try texts(bob.sync(), of: bob, in: convoID), ["one", "two", "three"])
        XCTAssertEqual(try texts(bob.sync(), of: bob, in: convoID), [], "each exactly once")

        // Detached, the cache holding a prefix only: two messages announced (the hub reads and
        // caches them for Alice, who follows the group), then two unannounced. Bob resumes and
        // syncs at once: his Session's catch-up gets the cached prefix, the barrier the rest.
        try bob.mqtt.disconnect()
        XCTAssertEqual(try alice.say("four", in: convoID).reasonCode, .success)
        XCTAssertEqual(try alice.say("five", in: convoID).reasonCode, .success)
        // Alice's barrier reads the log through "five" and caches it (her own messages: none to read).
        XCTAssertEqual(try texts(alice.sync(), of: alice, in: convoID), [])
        try append(["six", "seven"], from: alice, in: convoID, through: unheard)
        XCTAssertTrue(try bob.connect(cleanStart: false, expiry: 300).sessionPresent)
        XCTAssertEqual(try texts(bob.sync(), of: bob, in: convoID), ["four", "five", "six", "seven"])

        // XRPC while detached, then a resume: the same.
        try bob.mqtt.disconnect()
        XCTAssertEqual(try alice.sendOverXRPC("eight", in: convoID), 200)
        try append(["nine"], from: alice, in: convoID, through: unheard)
        XCTAssertTrue(try bob.connect(cleanStart: false, expiry: 300).sessionPresent)
        XCTAssertEqual(try texts(bob.sync(), of: bob, in: convoID), ["eight", "nine"])
    }

    /// The barrier's read (`EventSource.logEvents`) against the cache's: the cache answers with the
    /// run it holds although the log holds more; the log read gets everything and extends the cache.
    func testLogEvents_ReadPastWhatTheCacheHolds() throws {
        let service = try service
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        let convoID = try makeGroup(alice, [bob])
        XCTAssertEqual(try alice.say("one", in: convoID).reasonCode, .success)
        let store = unannouncedStore(service)
        let source = EventSource(store: store, inlineCiphertextLimit: 0, batchSize: 100)
        let all = try source.events(convoID: convoID, after: 0)
        let last = try XCTUnwrap(all.last?.seq)
        XCTAssertEqual(all.count, Int(last), "the whole log, now cached")
        try append(["two", "three"], from: alice, in: convoID, through: store)
        XCTAssertEqual(try source.events(convoID: convoID, after: 1).count, Int(last) - 1, "the cache's run only")
        let read = try source.logEvents(convoID: convoID, after: 1)
        XCTAssertEqual(read.map(\.seq), Array(2...(last + 2)), "the log's, past the cached run")
        XCTAssertEqual(try source.events(convoID: convoID, after: 1).count, Int(last) + 1, "and kept")
    }

    func testSync_WithNothingFollowed_IsAnsweredAtOnce_AndAtTheSubscriptionsQoS() throws {
        let alice = RelayTestUser(try service)
        let client = try alice.connect()
        XCTAssertEqual(try client.subscribe(alice.syncTopic, qos: .atMostOnce), .grantedQoS0)
        XCTAssertEqual(try alice.publish(alice.syncTopic, [7]).reasonCode, .success)
        let answer = try XCTUnwrap(try alice.next(on: alice.syncTopic), "the nonce back")
        XCTAssertEqual(answer.payload, [7])
        XCTAssertEqual(answer.qos, .atMostOnce)
        XCTAssertFalse(answer.retain)
        // QoS 1 and a 64-byte nonce; a QoS 0 sync publish is answered too.
        XCTAssertEqual(try client.subscribe(alice.syncTopic), .grantedQoS1)
        let nonce = SecureRandom.bytes(64)
        XCTAssertEqual(try alice.publish(alice.syncTopic, nonce).reasonCode, .success)
        let second = try XCTUnwrap(try alice.next(on: alice.syncTopic))
        XCTAssertEqual(second.payload, nonce)
        XCTAssertEqual(second.qos, .atLeastOnce)
        try client.send(topic: alice.syncTopic, payload: [1, 2], qos: .atMostOnce)
        XCTAssertEqual(try XCTUnwrap(try alice.next(on: alice.syncTopic)).payload, [1, 2])
    }

    func testSync_OnlyItsOwnerMaySubscribeOrPublish_AndTheNonceIsBounded() throws {
        let service = try service
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        try alice.connect()
        try bob.connect()
        XCTAssertEqual(try bob.mqtt.subscribe(alice.syncTopic), .notAuthorized, "another client's relay/s")
        XCTAssertEqual(try bob.publish(alice.syncTopic, [1]).reasonCode, .notAuthorized)
        XCTAssertEqual(try bob.mqtt.subscribe("relay/s/+"), .notAuthorized)
        // Another client of the same DID is another connection: refused too.
        let aliceToo = RelayTestUser(service, user: alice.user)
        try aliceToo.connect()
        XCTAssertEqual(try aliceToo.mqtt.subscribe(alice.syncTopic), .notAuthorized)
        XCTAssertEqual(try aliceToo.publish(alice.syncTopic, [1]).reasonCode, .notAuthorized)
        // The nonce: 1 to 64 bytes.
        XCTAssertEqual(try alice.publish(alice.syncTopic, []).reasonCode, .payloadFormatInvalid)
        XCTAssertEqual(try alice.publish(alice.syncTopic, [UInt8](repeating: 1, count: 65)).reasonCode, .payloadFormatInvalid)
        // Not a Relay topic: relay/s/ with something else than a client_id.
        XCTAssertEqual(try alice.publish("relay/s/\(alice.did)", [1]).reasonCode, .topicNameInvalid)
        // Nothing is stored or retained: a new subscription gets nothing until a sync.
        XCTAssertEqual(try alice.mqtt.subscribe(alice.syncTopic), .grantedQoS1)
        XCTAssertEqual(try alice.sync().filter { $0.topic == alice.syncTopic }.count, 0)
    }

    /// The hub leaves its news to a Session's catch-up while one is under way, and the cache may not
    /// hold what was announced yet (the hub's first news of a conversation offers no events). A
    /// catch-up must then not take the cache's shorter run for the end but read the rest from the
    /// log, without a sync (`EventCache.heard`): before, the Session stopped at the cache's end and the announced
    /// messages waited for the next news (the MQTT bench's second run lost its warm-up message so,
    /// on every subscriber). And a resumed Session reads from the log what arrived while detached.
    func testCatchUp_ReachesWhatTheHubAnnounced_PastTheCachesEnd_WithoutASync() throws {
        let service = try service
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        try bob.connect(cleanStart: true, expiry: 300)
        let convoID = try makeGroup(alice, [bob])
        XCTAssertEqual(try bob.drain(convoID), [])
        let session = try XCTUnwrap(service.app.relayBroker?.session(clientID: bob.clientID))
        // As while a catch-up of Bob's is scheduled: the hub's offers are left to it.
        session.state.withLock { state in
            state.dirty.insert(convoID)
            state.catchUpScheduled = true
        }
        // Cached (the hub reads them for Alice, who follows the group), then two in the log only,
        // then the hub's announcement of the newest event, as on its first news.
        XCTAssertEqual(try alice.say("one", in: convoID).reasonCode, .success)
        XCTAssertEqual(try alice.say("two", in: convoID).reasonCode, .success)
        XCTAssertEqual(try texts(alice.sync(), of: alice, in: convoID), [])
        try append(["three", "four"], from: alice, in: convoID, through: unannouncedStore(service))
        let newest = try XCTUnwrap(try unannouncedStore(service).lastEventSeq(convoID: convoID))
        let position = try XCTUnwrap(session.state.withLock { $0.follows[convoID] })
        XCTAssertEqual(session.context.source.cache.events(convoID: convoID, after: position, limit: 100)?.count, 2,
                       "the cache holds one and two, not what follows")
        // The listener heard the newest one announced; the fan-out has not read it yet.
        session.context.source.cache.heard(convoID: convoID, seq: newest)
        session.state.withLock { $0.catchUpScheduled = false }
        session.scheduleCatchUp()
        XCTAssertEqual(try bob.hear(4, in: convoID), ["one", "two", "three", "four"])

        // Detached: one announced and cached, one in the log only; the resumed Session gets both.
        try bob.mqtt.disconnect()
        XCTAssertEqual(try alice.say("five", in: convoID).reasonCode, .success)
        XCTAssertEqual(try texts(alice.sync(), of: alice, in: convoID), [])
        try append(["six"], from: alice, in: convoID, through: unannouncedStore(service))
        XCTAssertTrue(try bob.connect(cleanStart: false, expiry: 300).sessionPresent)
        XCTAssertEqual(try bob.hear(2, in: convoID), ["five", "six"])
    }
}
