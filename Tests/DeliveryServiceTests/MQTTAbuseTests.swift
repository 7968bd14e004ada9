import Basics
@testable import DeliveryService
import Dispatch
import Foundation
import HTTP
import MLS
import MQTT
import MQTTClient
import Primitives
import Store
import TestSupport
import XCTest

/// The MQTT listener held to the limits of docs/SECURITY.md ("The MQTT listener"): each test is an
/// attack on the real server and PostgreSQL, by an account (or a stranger without one), with the
/// service's production limits unless the test says otherwise.
///
/// No assertion is on wall time (docs/performance.md has the figures, `make bench` items m1, m2,
/// m4): an honest client must be served at all while the attack runs, where the old code left its
/// CONNECT behind every relay worker until the client's 10 s connect timeout; the timings are printed.
final class MQTTAbuseTests: XCTestCase {
    /// Seconds `body` took.
    private func timed(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// An honest user's CONNECT and PUBLISH (one KeyPackage), each timed; a failure counts as never.
    private func honestRound(_ user: RelayTestUser) -> (connect: Double, publish: Double) {
        var connect = Double.infinity, publish = Double.infinity
        do {
            connect = try timed { try user.connect() }
            publish = try timed { XCTAssertEqual(try user.publishKeyPackages(1), .success) }
            user.client?.disconnect()
        } catch {
            XCTFail("the honest user was not served: \(error)")
        }
        return (connect, publish)
    }

    /// The CONNACK's Reason Code (0x80 for a connection that ended without one).
    private static func connackCode(port: Int, options: MQTTClient.Options, timeout: Double = 10) -> ReasonCode {
        do {
            _ = try MQTTClient(host: "127.0.0.1", port: port, options: options, timeout: timeout)
            return .success
        } catch {
            if case .refused(let code, _) = error { return code }
            return .unspecifiedError
        }
    }

    private func subscribePacket(_ filters: [String], identifier: UInt16, qos: QoS = .atLeastOnce) -> [UInt8] {
        MQTTPacket.subscribe(SubscribePacket(packetIdentifier: identifier, subscriptions: filters.map {
            SubscribePacket.Subscription(topicFilter: $0, options: SubscriptionOptions(maximumQoS: qos))
        })).encoded()
    }

    // MARK: 1. One SUBSCRIBE against the process

    /// An account binds as many client_ids as it can (each CONNECT binds one), then sends one 1 MiB
    /// SUBSCRIBE holding its own `relay/u` filter about 24,000 times. Client_ids per DID are capped;
    /// a SUBSCRIBE of more than MQTT_MAX_FILTERS_PER_SUBSCRIBE filters is refused before they are
    /// decoded; within that limit repeated filters are merged, so the retained client list is read
    /// and sent once; the server's resident memory stays bounded; an honest user connects and
    /// publishes meanwhile.
    func test_oneSubscribeOfRepeatedUserFilters_staysBounded() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0"])
        defer { service.shutdown() }
        let port = try XCTUnwrap(service.app.mqttPort)
        let mallory = RelayTestUser(service)
        var bound: [String] = []
        for _ in 0..<300 {
            let clientID = Hex.encode(SecureRandom.bytes(16))
            guard let client = try? MQTTClient(host: "127.0.0.1", port: port, options: mallory.options(clientID: clientID)) else { continue }
            bound.append(clientID)
            client.disconnect()
        }
        XCTAssertLessThanOrEqual(bound.count, 32, "client_ids one DID may bind (MQTT_MAX_CLIENTS_PER_DID)")
        let attacker = try MQTTClient(host: "127.0.0.1", port: port, options: mallory.options(clientID: try XCTUnwrap(bound.first)))
        let alice = RelayTestUser(service)
        _ = honestRound(alice)

        let filter = "relay/u/\(mallory.did)"
        let copies = ((1 << 20) - 64) / (filter.utf8.count + 3)
        try ProcessMemory.resetPeak()
        let before = try ProcessMemory.status().rss
        try attacker.writeRaw(subscribePacket(Array(repeating: filter, count: copies), identifier: 7))
        let honest = honestRound(alice)
        // The same filter again, as many times as one SUBSCRIBE may hold: one subscription.
        let within = try attacker.subscribe(Array(repeating: (filter, SubscriptionOptions(maximumQoS: .atLeastOnce)), count: 128),
                                            timeout: 120)
        XCTAssertEqual(Set(within.reasonCodes), [.grantedQoS1])
        var retained = 0
        while let message = try attacker.receive(timeout: 3), message.topic == filter { retained += 1 }
        let growth = try ProcessMemory.status().peak - before
        print("one SUBSCRIBE of \(copies) × \(filter): \(bound.count) client_ids bound, \(retained) retained copies sent, "
              + "peak RSS +\(growth / 1024) MB; honest CONNECT \(honest.connect) s, PUBLISH \(honest.publish) s")
        XCTAssertEqual(retained, 1, "the oversized SUBSCRIBE examined nothing; the 128 copies are one subscription")
        XCTAssertLessThan(growth, 64 * 1024, "peak resident memory growth (kB)")
        XCTAssertTrue(honest.connect.isFinite && honest.publish.isFinite, "the honest user was served during the attack")
    }

    // MARK: 2. Connections against the relay workers

    /// Forty accounts pipeline SUBSCRIBEs of about 70,000 filters each (group topics of unknown
    /// groups, one membership query apiece): three of 1 MiB (refused whole, undecoded), then forty of
    /// as many filters as one may hold (each examined until the account's RATE_LIMIT_SUBSCRIBE runs
    /// out, 8 per job of a relay worker). An honest user still connects and publishes, and XRPC
    /// still gets the database.
    func test_subscribeFloodsFromFortyConnections_anHonestClientIsStillServed() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0"])
        defer { service.shutdown() }
        let alice = RelayTestUser(service)
        _ = honestRound(alice)
        let xrpcUser = service.makeUser()
        XCTAssertEqual(try service.call("blue.catbird.mls.getConvos", as: xrpcUser).status, 200)
        func unknownGroups(_ count: Int) -> [String] { (0..<count).map { _ in "relay/g/\(Hex.encode(SecureRandom.bytes(16)))/m" } }
        let packets = (0..<3).map { subscribePacket(unknownGroups(23_000), identifier: UInt16(100 + $0)) }
            + (0..<40).map { subscribePacket(unknownGroups(128), identifier: UInt16(200 + $0)) }
        let attackers = try (0..<40).map { _ in try RelayTestUser(service).connect() }
        let writers = DispatchGroup()
        for attacker in attackers {
            writers.enter()
            // Each client is used by its own thread only.
            nonisolated(unsafe) let client = attacker
            Thread {
                for packet in packets { try? client.writeRaw(packet) }
                writers.leave()
            }.start()
        }
        Thread.sleep(forTimeInterval: 0.5)
        var connects: [Double] = [], publishes: [Double] = [], reads: [Double] = []
        for _ in 0..<5 {
            let round = honestRound(alice)
            connects.append(round.connect)
            publishes.append(round.publish)
            reads.append((try? timed { XCTAssertEqual(try service.call("blue.catbird.mls.getConvos", as: xrpcUser).status, 200) })
                         ?? .infinity)
            Thread.sleep(forTimeInterval: 0.2)
        }
        print("40 SUBSCRIBE floods: honest CONNECT \(connects), PUBLISH \(publishes), XRPC getConvos \(reads) s")
        XCTAssertTrue((connects + publishes + reads).allSatisfy(\.isFinite), "every honest round was served during the floods")
        for attacker in attackers { attacker.drop() }
        _ = writers.wait(timeout: .now() + 30)
    }

    /// A subscriber that stops reading while its group is busy: the service keeps at most
    /// MQTT_MAX_UNSENT_BYTES for it, then ends the connection with DISCONNECT 0x97 (what was
    /// queued and not begun is dropped), instead of holding everything published meanwhile.
    func test_aSubscriberThatStopsReading_isDisconnectedPastTheOutputLimit() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0", "RATE_LIMIT_ENABLED": "0",
                                                       "MQTT_MAX_UNSENT_BYTES": "1048576"])
        defer { service.shutdown() }
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        let convoID = try makeGroup(alice, [bob])
        XCTAssertEqual(try bob.mqtt.subscribe("relay/g/\(convoID)/m", qos: .atMostOnce), .grantedQoS0)
        // Bob reads nothing from here on; Alice publishes 24 MB at QoS 0 subscribers.
        let text = String(repeating: "x", count: 60_000)
        for _ in 0..<400 {
            _ = try alice.mqtt.send(topic: "relay/g/\(convoID)/m", payload: try alice.encrypt(text, in: convoID), qos: .atMostOnce)
        }
        XCTAssertEqual(try alice.say("done", in: convoID).reasonCode, .success)
        var received = 0
        var ending: MQTTClient.Failure?
        do {
            while try bob.mqtt.receive(timeout: 5) != nil { received += 1 }
        } catch let failure as MQTTClient.Failure {
            ending = failure
        }
        print("a subscriber that stopped reading: \(received) of 401 messages, then \(String(describing: ending))")
        guard case .disconnected(let code, _)? = ending else { return XCTFail("still connected after \(received) messages") }
        XCTAssertEqual(code, .quotaExceeded)
        XCTAssertLessThan(received, 401)
    }

    // MARK: 3. A removed member keeps reading

    /// Before its removal, a member parks a GroupInfo of the next epoch on `/i` (held for its
    /// commit); once removed it may not subscribe to the group again on the strength of it.
    func test_aRemovedMemberWithAParkedGroupInfo_mayNotSubscribeAgain() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0"])
        defer { service.shutdown() }
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        let convoID = try makeGroup(alice, [bob])
        let parked = try XCTUnwrap(bob.user.groups[convoID]).update()
        XCTAssertEqual(try bob.publish("relay/g/\(convoID)/i", MLSMessage(body: .groupInfo(parked.groupInfo)).encoded()).reasonCode,
                       .success, "held for the commit that leads to it")
        try remove(bob, from: convoID, by: alice)
        XCTAssertNotNil(try bob.next(on: "relay/g/\(convoID)/m"), "the commit that removes him")
        for filter in ["relay/g/\(convoID)/m", "relay/g/\(convoID)/i", "relay/g/\(convoID)/#"] {
            XCTAssertEqual(try bob.mqtt.subscribe(filter), .notAuthorized, filter)
        }
        XCTAssertEqual(try alice.say("after bob", in: convoID).reasonCode, .success)
        XCTAssertNil(try bob.next(on: "relay/g/\(convoID)/m", timeout: 1))
    }

    /// A member's client that stops acknowledging (its Session holds 1000 unacknowledged messages,
    /// so it never reaches the commit that removes it), and another whose Session is stored while
    /// it is removed and then resumed: neither gets a GroupInfo of an epoch after the removal (each
    /// holds the whole ratchet tree), and once the first acknowledges, its follow ends at the removal.
    func test_aRemovedMember_getsNoLaterGroupInfo_stalledOrResumed() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0", "RATE_LIMIT_ENABLED": "0"])
        defer { service.shutdown() }
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        let convoID = try makeGroup(alice, [bob])
        let infoTopic = "relay/g/\(convoID)/i", messageTopic = "relay/g/\(convoID)/m"
        let staller = RelayTestUser(service, user: bob.user)
        try staller.connect()
        let sleeper = RelayTestUser(service, user: bob.user)
        try sleeper.connect(cleanStart: true, expiry: 300)
        for client in [staller, sleeper] {
            XCTAssertEqual(try client.mqtt.subscribe(infoTopic), .grantedQoS1)
            XCTAssertEqual(try client.mqtt.subscribe(messageTopic), .grantedQoS1)
            XCTAssertNotNil(try client.next(on: infoTopic), "the retained GroupInfo, while a member")
        }
        try sleeper.mqtt.disconnect()
        // The staller reads nothing from here on: 1000 messages fill its Session.
        for index in 0..<1010 {
            try alice.mqtt.send(topic: messageTopic, payload: try alice.encrypt("filler \(index)", in: convoID), qos: .atMostOnce)
        }
        let removal = try remove(bob, from: convoID, by: alice)
        XCTAssertEqual(try alice.publish(infoTopic, MLSMessage(body: .groupInfo(removal.groupInfo)).encoded()).reasonCode, .success)
        XCTAssertTrue(try sleeper.connect(cleanStart: false, expiry: 300).sessionPresent)
        let update = try XCTUnwrap(alice.user.groups[convoID]).update()
        XCTAssertEqual(try alice.publish(messageTopic, update.commit.encoded()).reasonCode, .success)
        alice.user.groups[convoID] = update.group
        XCTAssertEqual(try alice.publish(infoTopic, MLSMessage(body: .groupInfo(update.groupInfo)).encoded()).reasonCode, .success)

        let later = [MLSMessage(body: .groupInfo(removal.groupInfo)).encoded(), MLSMessage(body: .groupInfo(update.groupInfo)).encoded()]
        for (name, client) in [("stalled", staller), ("resumed", sleeper)] {
            // Everything the service sends now, acknowledged as it comes.
            var messages: [MQTTClient.Message] = []
            while let message = try client.mqtt.receive(timeout: 2) { messages.append(message) }
            let infos = messages.filter { $0.topic == infoTopic }
            XCTAssertTrue(infos.allSatisfy { !later.contains($0.payload) }, "\(name): a GroupInfo of an epoch after the removal")
            let group = messages.filter { $0.topic == messageTopic }
            XCTAssertEqual(group.last?.payload, removal.commit.encoded(), "\(name): the follow ends at the removal")
            print("\(name) removed member: \(group.count) messages on /m, \(infos.count) GroupInfos")
        }
    }

    @discardableResult
    private func remove(_ member: RelayTestUser, from convoID: String, by admin: RelayTestUser) throws -> CommitOutput {
        let leaf = try XCTUnwrap(member.user.groups[convoID]?.ownLeaf)
        let removal = try XCTUnwrap(admin.user.groups[convoID]).remove(leaves: [leaf])
        XCTAssertEqual(try admin.publish("relay/g/\(convoID)/m", removal.commit.encoded()).reasonCode, .success)
        admin.user.groups[convoID] = removal.group
        return removal
    }

    // MARK: 4. Strangers and DID documents

    /// 300 CONNECTs from one address, each a stranger's random did:plc with a token for another
    /// method: every one is charged to the address's DID-fetch budget (RATE_LIMIT_DID_RESOLUTION,
    /// 2/s burst 30) before its document is fetched, so the directory sees the burst and the
    /// refill, not 300 fetches.
    func test_connectsWithAnotherMethodsToken_spendTheDIDFetchBudget() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0", "RATE_LIMIT_DID_RESOLUTION": "2,30"])
        defer { service.shutdown() }
        let port = try XCTUnwrap(service.app.mqttPort)
        var codes: [ReasonCode: Int] = [:]
        let elapsed = timed {
            for _ in 0..<300 {
                let stranger = TestIdentity()
                let options = MQTTClient.Options(
                    clientIdentifier: Hex.encode(SecureRandom.bytes(16)), userName: stranger.did.rawValue,
                    password: Array(stranger.token(audience: ServiceHarness.serviceDID, nsid: "blue.catbird.mls.getConvos").utf8))
                codes[Self.connackCode(port: port, options: options), default: 0] += 1
            }
        }
        let fetches = service.plc.totalRequests
        print("300 strangers' CONNECTs with another method's token in \(elapsed) s: \(codes), \(fetches) directory fetches")
        XCTAssertLessThanOrEqual(fetches, 30 + Int(2 * elapsed) + 2, "the budget's burst and refill")
        XCTAssertNil(codes[.success])
        XCTAssertGreaterThanOrEqual(codes[.quotaExceeded] ?? 0, 300 - fetches, "past the budget: 0x97 before any fetch")
    }

    /// Strangers' CONNECTs whose documents a stalled directory sends only after 20 s (from many
    /// addresses, as a botnet's: the per-address budget off). No relay worker waits for a fetch: a
    /// known user connects and publishes while every stranger still waits.
    func test_strangersOnAStalledDirectory_doNotHoldTheRelayWorkers() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0", "MAX_CONNECTIONS_PER_IP": "0"])
        defer { service.shutdown() }
        let port = try XCTUnwrap(service.app.mqttPort)
        let alice = RelayTestUser(service)
        _ = honestRound(alice)
        service.plc.setFallback(.delayed(20, AbuseResolutionTests.notFound))
        let strangers = DispatchGroup()
        let answered = Locked<[ReasonCode]>([])
        for _ in 0..<40 {
            strangers.enter()
            Thread {
                let stranger = TestIdentity()
                let options = MQTTClient.Options(
                    clientIdentifier: Hex.encode(SecureRandom.bytes(16)), userName: stranger.did.rawValue,
                    password: Array(stranger.token(audience: ServiceHarness.serviceDID, nsid: RelayAuthenticator.connectNSID).utf8))
                let code = Self.connackCode(port: port, options: options, timeout: 30)
                answered.withLock { $0.append(code) }
                strangers.leave()
            }.start()
        }
        for _ in 0..<500 where service.plc.totalRequests < 8 { Thread.sleep(forTimeInterval: 0.01) }
        var rounds: [(connect: Double, publish: Double)] = []
        for _ in 0..<5 {
            rounds.append(honestRound(alice))
            Thread.sleep(forTimeInterval: 0.3)
        }
        // Served while every stranger was still waiting on the directory: no worker waited with them.
        let strangersAnsweredMeanwhile = answered.value.count
        XCTAssertEqual(strangers.wait(timeout: .now() + 40), .success)
        print("40 strangers on a stalled directory: \(answered.value); honest rounds \(rounds)")
        XCTAssertTrue(rounds.allSatisfy { $0.connect.isFinite && $0.publish.isFinite }, "every honest round was served")
        XCTAssertEqual(strangersAnsweredMeanwhile, 0, "the honest rounds ended before the stalled directory answered anyone")
        XCTAssertFalse(answered.value.contains(.success))
    }

    // MARK: 5. A retention gap

    /// A Session resumes at a position whose next events retention has purged. It does not read
    /// the log again and again: the follow moves past the gap, the next message carries the
    /// `OutdatedCursor` User Property, and what is left arrives.
    func test_aSessionInARetentionGap_movesOnWithASignal_insteadOfSpinning() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0"])
        defer { service.shutdown() }
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        try bob.connect(cleanStart: true, expiry: 300)
        let convoID = try makeGroup(alice, [bob])
        XCTAssertEqual(try alice.say("seen", in: convoID).reasonCode, .success)
        XCTAssertEqual(try bob.hear(1, in: convoID), ["seen"])
        try bob.mqtt.disconnect()
        for text in ["one", "two", "three", "four", "five"] { XCTAssertEqual(try alice.say(text, in: convoID).reasonCode, .success) }
        let rows = try DatabaseRows(service)
        let position = try XCTUnwrap(try rows.query("SELECT max(event_seq) AS s FROM messages WHERE convo_id = $1 AND event_seq IS NOT NULL",
                                                    [convoID]).first?.int64("s")) - 5
        // What the retention job would do to events past MESSAGE_TTL_DAYS: "one" and "two" are gone.
        for table in ["events", "messages"] {
            try rows.execute("DELETE FROM \(table) WHERE convo_id = $1 AND event_seq > $2 AND event_seq <= $3",
                             [convoID, position, position + 2])
        }
        func transactions() throws -> Int64 {
            try rows.query("SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()")
                .first?.int64("n") ?? 0
        }
        XCTAssertTrue(try bob.connect(cleanStart: false, expiry: 300).sessionPresent)
        var heard: [MQTTClient.Message] = []
        while let message = try bob.next(on: "relay/g/\(convoID)/m", timeout: 2) { heard.append(message) }
        // Statistics reach pg_stat_database within about a second of a busy backend's transactions.
        Thread.sleep(forTimeInterval: 1.5)
        let start = try transactions()
        Thread.sleep(forTimeInterval: 3)
        let spent = try transactions() - start
        print("a Session in a retention gap: \(heard.count) messages, then \(spent) transactions in 3 s")
        XCTAssertLessThan(spent, 300, "no catch-up spinning on the gap")
        XCTAssertEqual(heard.count, 3, "three, four, five")
        let signal = heard.first?.userProperties.first { $0.name == "OutdatedCursor" }
        XCTAssertNotNil(signal, "the first message after the gap says so")
        XCTAssertEqual(try heard.compactMap { try bob.apply($0.payload, in: convoID) }.count, 3)
    }
}
