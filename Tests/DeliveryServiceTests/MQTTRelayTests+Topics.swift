import Basics
import Foundation
import MLS
import MQTT
import MQTTClient
import XCTest

/// Per-topic rules of the Relay mapping: who may publish where, retransmissions, the retained
/// GroupInfo, creation at epoch 0, Welcomes across transports.
extension MQTTRelayTests {
    func testARetransmission_IsStoredOnce() throws {
        let service = try service
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        let convoID = try makeGroup(alice, [bob])
        let message = try alice.encrypt("once", in: convoID)
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/m", message).reasonCode, .success)
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/m", message).reasonCode, .success, "a DUP is acknowledged")
        XCTAssertEqual(try bob.hear(1, in: convoID), ["once"])
        XCTAssertNil(try bob.next(on: "relay/g/\(convoID)/m", timeout: 1), "and delivered once")
        let reply = try service.call("blue.catbird.mls.getMessages", as: bob.user.identity, query: [("convoId", convoID)])
        let apps = (reply.json["messages"] as? [[String: Any]] ?? []).filter { $0["messageType"] as? String == "app" }
        XCTAssertEqual(apps.count, 1)
        XCTAssertEqual(apps.first?["id"] as? String, Hex.encode(SHA256Test.hash(message)), "the msgId is the SHA-256 of the bytes")

        // A commit sent twice: the second is acknowledged, the epoch moves once.
        let update = try XCTUnwrap(alice.user.groups[convoID]).update()
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/m", update.commit.encoded()).reasonCode, .success)
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/m", update.commit.encoded()).reasonCode, .success)
        XCTAssertEqual(try ChatFlow(service: service).epoch(alice.user, convoID), 2)
    }

    func testTopicRules_ForPublishers() throws {
        let service = try service
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        try alice.connect()
        try bob.connect()
        let package = CBORArray.encode(byteStrings: [MLSMessage(body: .keyPackage(try alice.user.makeKeyPackage().keyPackage)).encoded()])
        XCTAssertEqual(try bob.publish("relay/k/\(alice.clientID)", package).reasonCode, .notAuthorized, "another client's KeyPackage topic")
        XCTAssertEqual(try alice.publish("relay/k/\(alice.clientID)", Array("junk".utf8)).reasonCode, .payloadFormatInvalid)
        XCTAssertEqual(try alice.publish("relay/k/\(alice.clientID)", CBORArray.encode(byteStrings: [[0, 1, 0, 5, 0]])).reasonCode,
                       .payloadFormatInvalid, "not a KeyPackage")
        // Bob's KeyPackage published as Alice's: the credential is not the caller's DID.
        let bobs = CBORArray.encode(byteStrings: [MLSMessage(body: .keyPackage(try bob.user.makeKeyPackage().keyPackage)).encoded()])
        let wrongOwner = try alice.publish("relay/k/\(alice.clientID)", bobs)
        XCTAssertEqual(wrongOwner.reasonCode, .unspecifiedError)
        XCTAssertTrue(wrongOwner.properties.reasonString?.hasPrefix("InvalidKeyPackage") == true, "\(String(describing: wrongOwner.properties.reasonString))")
        XCTAssertEqual(try alice.publish("relay/u/\(alice.did)", CBORArray.encode(textStrings: ["x"])).reasonCode, .notAuthorized)
        XCTAssertEqual(try alice.publish("elsewhere/topic", [1]).reasonCode, .topicNameInvalid)
        XCTAssertEqual(try alice.publish("relay/w/\(bob.clientID)", [1, 2, 3]).reasonCode, .payloadFormatInvalid)
        XCTAssertEqual(try alice.publish("relay/g/00112233/i", [1, 2, 3]).reasonCode, .payloadFormatInvalid)
        XCTAssertEqual(try alice.publish("relay/k/\(alice.clientID)", package).reasonCode, .success)
    }

    /// A group of one is created by its epoch-0 GroupInfo alone; later commits without a GroupInfo
    /// clear the retained value, and the GroupInfo of the new epoch restores it.
    func testTheRetainedGroupInfo_IsAlwaysTheLatestVerifiedOne() throws {
        let service = try service
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        try alice.connect()
        var group = try Group.create(suite: alice.user.suite, credential: alice.user.credential, signingKey: alice.user.signingKey)
        let convoID = Hex.encode(group.groupID)
        let epochZero = try group.makeGroupInfo()
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/i", MLSMessage(body: .groupInfo(epochZero)).encoded()).reasonCode, .success)
        XCTAssertEqual(try ChatFlow(service: service).epoch(alice.user, convoID), 0, "created at epoch 0 with createConvo's rules")
        XCTAssertEqual(try alice.mqtt.subscribe("relay/g/\(convoID)/i"), .grantedQoS1)
        XCTAssertEqual(try XCTUnwrap(try alice.next(on: "relay/g/\(convoID)/i")).payload, MLSMessage(body: .groupInfo(epochZero)).encoded())

        // A commit without its GroupInfo: the retained value is gone (a new subscriber gets nothing).
        let update = try group.update()
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/m", update.commit.encoded()).reasonCode, .success)
        group = update.group
        try bob.connect()
        XCTAssertEqual(try bob.mqtt.subscribe("relay/g/\(convoID)/i"), .notAuthorized, "members only")
        let again = RelayTestUser(service, user: alice.user)
        try again.connect()
        XCTAssertEqual(try again.mqtt.subscribe("relay/g/\(convoID)/i"), .grantedQoS1)
        XCTAssertNil(try again.next(on: "relay/g/\(convoID)/i", timeout: 1), "no stale GroupInfo")
        // An old epoch's GroupInfo is refused; the current one is verified, stored and delivered.
        let stale = try alice.publish("relay/g/\(convoID)/i", MLSMessage(body: .groupInfo(epochZero)).encoded())
        XCTAssertEqual(stale.reasonCode, .unspecifiedError)
        XCTAssertTrue(stale.properties.reasonString?.hasPrefix("EpochMismatch") == true)
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/i", MLSMessage(body: .groupInfo(update.groupInfo)).encoded()).reasonCode, .success)
        XCTAssertEqual(try XCTUnwrap(try again.next(on: "relay/g/\(convoID)/i")).payload, MLSMessage(body: .groupInfo(update.groupInfo)).encoded())
        XCTAssertEqual(try XCTUnwrap(try alice.next(on: "relay/g/\(convoID)/i")).payload, MLSMessage(body: .groupInfo(update.groupInfo)).encoded())
    }

    /// A member added with XRPC's addMembers from a KeyPackage its client published over MQTT gets the
    /// Welcome on relay/w, and an MQTT Session ended with expiry 0 is not resumed.
    func testAWelcomeFromXRPC_ReachesTheMQTTClient() throws {
        let (chat, alice, bob) = try xrpcAdderAndMQTTClient()
        XCTAssertEqual(try bob.mqtt.subscribe("relay/w/\(bob.clientID)"), .grantedQoS1)
        _ = try chat.publishKeyPackage(alice)
        let convoID = try chat.createConvo(alice, with: [])
        let output = try addOverXRPC(bob, to: convoID, by: alice, chat: chat)
        let welcome = try XCTUnwrap(try bob.next(on: "relay/w/\(bob.clientID)"), "the Welcome reaches MQTT")
        XCTAssertEqual(welcome.payload, try XCTUnwrap(output.welcome).encoded())
        try bob.join(welcome.payload, convoID: convoID)
        // Acknowledged: not delivered again, even on a new Session.
        try bob.mqtt.disconnect()
        let fresh = try bob.connect(cleanStart: false, expiry: 0)
        XCTAssertFalse(fresh.sessionPresent, "the Session ended with its connection (expiry 0)")
        XCTAssertEqual(try bob.mqtt.subscribe("relay/w/\(bob.clientID)"), .grantedQoS1)
        XCTAssertNil(try bob.next(on: "relay/w/\(bob.clientID)", timeout: 1))
    }
}

extension MQTTRelayTests {
    /// A member who subscribes to /m some time after the commit that added it still gets what was
    /// committed in between: its follow starts at its join, not at the log's end when it subscribed.
    func testAJoinerSubscribingLate_GetsEverythingSinceItsJoin() throws {
        let (chat, alice, bob) = try xrpcAdderAndMQTTClient()
        _ = try chat.publishKeyPackage(alice)
        let convoID = try chat.createConvo(alice, with: [])
        XCTAssertEqual(try chat.send(alice, convoID, "before bob").status, 200)
        let output = try addOverXRPC(bob, to: convoID, by: alice, chat: chat)
        // Committed after bob's add and before bob subscribes.
        XCTAssertEqual(try chat.send(alice, convoID, "while bob joins").status, 200)
        try bob.join(try XCTUnwrap(output.welcome).encoded(), convoID: convoID)
        XCTAssertEqual(try bob.mqtt.subscribe("relay/g/\(convoID)/m"), .grantedQoS1)
        XCTAssertEqual(try bob.drain(convoID), ["while bob joins"], "what came before the add is not his to read")
    }

    /// An XRPC user and an MQTT client that published one KeyPackage on relay/k.
    private func xrpcAdderAndMQTTClient() throws -> (ChatFlow, MLSTestUser, RelayTestUser) {
        let service = try service
        let bob = RelayTestUser(service)
        try bob.connect()
        XCTAssertEqual(try bob.publishKeyPackages(1), .success)
        return (ChatFlow(service: service), MLSTestUser(service.makeUser()), bob)
    }

    /// `adder` adds `member` (its KeyPackage published over MQTT) with XRPC's addMembers; the adder's
    /// group moves to the new epoch.
    private func addOverXRPC(_ member: RelayTestUser, to convoID: String, by adder: MLSTestUser, chat: ChatFlow) throws -> CommitOutput {
        let packages = try chat.keyPackages(as: adder, for: [member.user])
        let output = try XCTUnwrap(adder.groups[convoID]).add(keyPackages: packages)
        let reply = try chat.service.call("blue.catbird.mls.addMembers", as: adder.identity, json: [
            "convoId": convoID, "didList": [member.did], "commit": MLSTestUser.bytes(output.commit),
            "welcomeMessage": MLSTestUser.bytes(try XCTUnwrap(output.welcome)),
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(output.groupInfo))),
        ])
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        adder.groups[convoID] = output.group
        return output
    }
}

/// SHA-256 for the test's expectations, through the MLS suite's hash (no second implementation).
enum SHA256Test {
    static func hash(_ bytes: [UInt8]) -> [UInt8] { CipherSuite(rawValue: 1)!.hash(bytes) }
}

/// Two nodes on one database: one store and one order whichever node a client is on.
extension MQTTRelayTests {
    func testTwoNodes_ShareMessagesAndSessions() throws {
        let service = try service
        let node = try service.startNode()
        defer { node.shutdown() }
        let otherPort = try XCTUnwrap(node.mqttPort)
        let alice = RelayTestUser(service), bob = RelayTestUser(service)
        try bob.connect(cleanStart: true, expiry: 300)
        let convoID = try makeGroup(alice, [bob])
        // Bob moves to the other node: his Session (and its /m subscription) comes along.
        try bob.mqtt.disconnect()
        XCTAssertEqual(try alice.say("while bob moves", in: convoID).reasonCode, .success)
        let moved = try bob.connect(cleanStart: false, expiry: 300, port: otherPort)
        XCTAssertTrue(moved.sessionPresent, "the Session is resumed on the other node")
        XCTAssertEqual(try bob.hear(1, in: convoID), ["while bob moves"])
        // Published on node 1, delivered on node 2 (LISTEN/NOTIFY), and back.
        XCTAssertEqual(try alice.say("across nodes", in: convoID).reasonCode, .success)
        XCTAssertEqual(try bob.hear(1, in: convoID), ["across nodes"])
        XCTAssertEqual(try bob.say("and back", in: convoID).reasonCode, .success)
        XCTAssertEqual(try alice.hear(1, in: convoID), ["and back"])

        // Taken over from node 1 while connected to node 2: the node-2 connection is told 0x8E and
        // node 1 resumes the Session with its position.
        let onNodeTwo = try bob.mqtt
        let back = try bob.connect(cleanStart: false, expiry: 300)
        XCTAssertTrue(back.sessionPresent)
        try assertDisconnected(onNodeTwo, with: .sessionTakenOver, "the node-2 connection should have been disconnected")
        XCTAssertEqual(try alice.say("after the takeover", in: convoID).reasonCode, .success)
        XCTAssertEqual(try bob.hear(1, in: convoID), ["after the takeover"])
        XCTAssertNil(try bob.next(on: "relay/g/\(convoID)/m", timeout: 1), "nothing twice")
    }
}
