import Basics
@testable import DeliveryService
import Foundation
import HTTP
import MLS
import MQTT
import MQTTClient
import Primitives
import TestSupport
import XCTest

/// A raw connection for CONNECT packets `MQTTClient.Options` cannot express.
struct ClientProbe {
    let stream: ClientByteStream

    init(port: Int) throws { stream = try ClientByteStream.connect(host: "127.0.0.1", port: port, tls: false) }

    func connack(_ connect: ConnectPacket) throws -> ConnAckPacket {
        try stream.write(MQTTPacket.connect(connect).encoded())
        var splitter = FrameSplitter(maximumPacketSize: 1 << 20)
        while true {
            if let frame = try splitter.next(), case .connack(let connack) = try MQTTPacket.decode(frame) { return connack }
            let bytes = try stream.read(timeout: 5)
            if bytes.isEmpty { throw MQTTClient.Failure.disconnected(nil, "closed before CONNACK") }
            splitter.append(bytes)
        }
    }
}

/// The Relay protocol on the real service over MQTT (docs/mqtt.md): authentication, topics mapped to
/// the store's operations with their checks, delivery from the event log, Sessions. MLS users are
/// our own `Group`s; the third-party clients (paho-mqtt, mosquitto) run in scripts/mqtt-interop.sh.
final class MQTTRelayTests: XCTestCase {
    nonisolated(unsafe) private static var shared: Result<ServiceHarness, Error>?

    override class func setUp() {
        super.setUp()
        shared = Result { try ServiceHarness(environment: ["MQTT_PORT": "0", "RATE_LIMIT_ENABLED": "0"]) }
    }

    override class func tearDown() {
        if case .success(let harness) = shared { harness.shutdown() }
        shared = nil
        super.tearDown()
    }

    var service: ServiceHarness { get throws { try XCTUnwrap(Self.shared).get() } }

    private func refusal(_ block: () throws -> Void) -> (ReasonCode, String?)? {
        do {
            try block()
            return nil
        } catch let failure as MQTTClient.Failure {
            if case let .refused(code, reason) = failure { return (code, reason) }
            return nil
        } catch {
            return nil
        }
    }

    // MARK: CONNECT

    func testConnect_AuthenticatesTheDIDWithAServiceAuthToken() throws {
        let service = try service
        let alice = RelayTestUser(service)
        let port = try XCTUnwrap(service.app.mqttPort)
        let client = try alice.connect()
        XCTAssertEqual(client.connack.reasonCode, .success)
        XCTAssertFalse(client.sessionPresent)
        client.disconnect()

        // A token for another method: valid, but not for this: 0x87.
        let other = refusal { _ = try MQTTClient(host: "127.0.0.1", port: port, options: alice.options(lxm: "blue.catbird.mls.getConvos")) }
        XCTAssertEqual(other?.0, .notAuthorized, "\(String(describing: other))")
        XCTAssertTrue(other?.1?.hasPrefix("BadJwtLexiconMethod") == true, "\(String(describing: other))")

        // A password that is no token, or someone else's DID as User Name: 0x86.
        var garbage = alice.options()
        garbage.password = Array("not a token".utf8)
        XCTAssertEqual(refusal { _ = try MQTTClient(host: "127.0.0.1", port: port, options: garbage) }?.0, .badUserNameOrPassword)
        var impostor = alice.options()
        impostor.userName = service.makeUser().did.rawValue
        XCTAssertEqual(refusal { _ = try MQTTClient(host: "127.0.0.1", port: port, options: impostor) }?.0, .badUserNameOrPassword)

        // The same token twice (same jti): the second CONNECT is a replay, 0x86.
        let once = alice.options()
        _ = try MQTTClient(host: "127.0.0.1", port: port, options: once)
        XCTAssertEqual(refusal { _ = try MQTTClient(host: "127.0.0.1", port: port, options: once) }?.0, .badUserNameOrPassword)

        // A Will Message (the service would publish it unchecked after the client left): 0x83.
        let will = RelayTestUser(service)
        let raw = try ClientProbe(port: port)
        var connect = ConnectPacket(clientIdentifier: will.clientID, userName: will.did,
                                    password: will.options().password)
        connect.will = ConnectPacket.Will(topic: "relay/u/\(will.did)", payload: [1])
        XCTAssertEqual(try raw.connack(connect).reasonCode, .implementationSpecificError)

        // A client_id that is not 32 lower-case hex, or one bound to another DID: 0x85.
        XCTAssertEqual(refusal { _ = try MQTTClient(host: "127.0.0.1", port: port, options: alice.options(clientID: "ABC")) }?.0,
                       .clientIdentifierNotValid)
        let bob = RelayTestUser(service)
        XCTAssertEqual(refusal {
            _ = try MQTTClient(host: "127.0.0.1", port: port, options: bob.options(clientID: alice.clientID))
        }?.0, .clientIdentifierNotValid)
    }

    /// CONNECTs with tokens for DIDs the service has never seen, from one address, spend that
    /// address's budget of DID document fetches (`RATE_LIMIT_DID_RESOLUTION`) as XRPC calls do:
    /// past it, CONNACK 0x97 before any fetch; a user whose key is cached still connects.
    func testConnect_WithUnknownDIDs_SpendsTheAddresssDIDFetchBudget() throws {
        let service = try ServiceHarness(environment: ["MQTT_PORT": "0", "RATE_LIMIT_DID_RESOLUTION": "0.001,3"])
        defer { service.shutdown() }
        let port = try XCTUnwrap(service.app.mqttPort)
        let alice = RelayTestUser(service)
        try alice.connect().disconnect()
        var codes: [ReasonCode] = []
        for _ in 0..<6 {
            let junk = TestIdentity()
            let options = MQTTClient.Options(
                clientIdentifier: Hex.encode(SecureRandom.bytes(16)), userName: junk.did.rawValue,
                password: Array(junk.token(audience: ServiceHarness.serviceDID, nsid: RelayAuthenticator.connectNSID).utf8))
            codes.append(refusal { _ = try MQTTClient(host: "127.0.0.1", port: port, options: options) }?.0 ?? .success)
        }
        XCTAssertEqual(codes, [.badUserNameOrPassword, .badUserNameOrPassword, .quotaExceeded, .quotaExceeded,
                               .quotaExceeded, .quotaExceeded], "alice's fetch and two junk ones use the burst of 3")
        XCTAssertEqual(service.plc.totalRequests, 3)
        try alice.connect().disconnect()
    }

    func testTheSameClientConnectingAgain_TakesTheSessionOver() throws {
        let alice = RelayTestUser(try service)
        let first = try alice.connect(cleanStart: false, expiry: 60)
        let second = try alice.connect(cleanStart: false, expiry: 60)
        XCTAssertTrue(second.sessionPresent)
        try assertDisconnected(first, with: .sessionTakenOver, "the first connection should have been disconnected")
        XCTAssertEqual(try second.subscribe("relay/u/\(alice.did)"), .grantedQoS1)
    }

    // MARK: A group over MQTT

    /// Three members, everything over MQTT but where XRPC is the point: KeyPackages on relay/k, the
    /// directory on relay/u, creation by GroupInfo + commit, Welcomes on relay/w, messages both ways
    /// between MQTT and XRPC, a non-member refused, an invalid commit refused while the group goes
    /// on, a removed member's subscription ended, a reconnect that gets exactly what it missed.
    func testAThreeMemberGroup_OverMQTT() throws {
        let service = try service
        let alice = RelayTestUser(service), bob = RelayTestUser(service), carol = RelayTestUser(service)
        let chat = ChatFlow(service: service)
        for user in [alice, bob, carol] { try user.connect() }
        // Bob keeps his Session across connections.
        try bob.connect(cleanStart: true, expiry: 300)
        XCTAssertEqual(try bob.publishKeyPackages(2), .success)
        XCTAssertEqual(try carol.publishKeyPackages(2), .success)
        for user in [bob, carol] { XCTAssertEqual(try user.mqtt.subscribe("relay/w/\(user.clientID)"), .grantedQoS1) }

        // The directory and the retained KeyPackages, as an adder finds them.
        XCTAssertEqual(try alice.mqtt.subscribe("relay/u/\(bob.did)"), .grantedQoS1)
        let directory = try XCTUnwrap(try alice.next(on: "relay/u/\(bob.did)"))
        XCTAssertTrue(directory.retain)
        XCTAssertEqual(try CBORArray.decodeTextStrings(directory.payload, maxCount: 10, maxItemBytes: 64), [bob.clientID])
        XCTAssertEqual(try alice.mqtt.subscribe("relay/k/\(bob.clientID)"), .grantedQoS1)
        let bundle = try XCTUnwrap(try alice.next(on: "relay/k/\(bob.clientID)"))
        let bobPackages = try CBORArray.decodeByteStrings(bundle.payload, maxCount: 100, maxItemBytes: 1 << 16)
        XCTAssertEqual(bobPackages.count, 1, "of his two, one per cipher suite: what getKeyPackages would hand out")
        let xrpcPackages = try chat.keyPackages(as: alice.user, for: [bob.user])
        XCTAssertEqual(xrpcPackages.count, 1, "published over MQTT, served by getKeyPackages too")

        // Creation, Relay's order: Welcome, GroupInfo, subscribe, commit.
        var group = try Group.create(suite: alice.user.suite, credential: alice.user.credential, signingKey: alice.user.signingKey)
        let convoID = Hex.encode(group.groupID)
        let bobPackage = try KeyPackage.decodePublished(bobPackages[0]).keyPackage
        let creation = try group.add(keyPackages: [bobPackage], includePath: false)
        group = creation.group
        XCTAssertEqual(try alice.publish("relay/w/\(bob.clientID)", try XCTUnwrap(creation.welcome).encoded()).reasonCode, .success)
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/i", MLSMessage(body: .groupInfo(creation.groupInfo)).encoded()).reasonCode, .success)
        XCTAssertEqual(try alice.mqtt.subscribe("relay/g/\(convoID)/m", noLocal: true), .grantedQoS1)
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/m", creation.commit.encoded()).reasonCode, .success)
        alice.user.groups[convoID] = group
        XCTAssertEqual(try chat.epoch(alice.user, convoID), 1)

        // Bob's Welcome is released by the accepted commit.
        let bobWelcome = try XCTUnwrap(try bob.next(on: "relay/w/\(bob.clientID)"), "Bob's Welcome")
        try bob.join(bobWelcome.payload, convoID: convoID)
        XCTAssertEqual(try bob.mqtt.subscribe("relay/g/\(convoID)/m", noLocal: true), .grantedQoS1)
        XCTAssertEqual(try bob.mqtt.subscribe("relay/g/\(convoID)/i"), .grantedQoS1)
        let retainedInfo = try XCTUnwrap(try bob.next(on: "relay/g/\(convoID)/i"), "the retained GroupInfo")
        XCTAssertTrue(retainedInfo.retain)
        XCTAssertEqual(retainedInfo.payload, MLSMessage(body: .groupInfo(creation.groupInfo)).encoded())

        XCTAssertEqual(try alice.say("hello bob", in: convoID).reasonCode, .success)
        XCTAssertEqual(try bob.hear(1, in: convoID), ["hello bob"])

        // Alice adds Carol: Welcome first, then the commit; the GroupInfo of epoch 2 after it.
        XCTAssertEqual(try alice.mqtt.subscribe("relay/k/\(carol.clientID)"), .grantedQoS1)
        let carolBundle = try CBORArray.decodeByteStrings(try XCTUnwrap(try alice.next(on: "relay/k/\(carol.clientID)")).payload,
                                                          maxCount: 100, maxItemBytes: 1 << 16)
        let addCarol = try group.add(keyPackages: [try KeyPackage.decodePublished(carolBundle[0]).keyPackage])
        XCTAssertEqual(try alice.publish("relay/w/\(carol.clientID)", try XCTUnwrap(addCarol.welcome).encoded()).reasonCode, .success)
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/m", addCarol.commit.encoded()).reasonCode, .success)
        group = addCarol.group
        alice.user.groups[convoID] = group
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/i", MLSMessage(body: .groupInfo(addCarol.groupInfo)).encoded()).reasonCode, .success)
        XCTAssertEqual(try bob.drain(convoID), [])
        XCTAssertEqual(bob.user.groups[convoID]?.epoch, 2, "Bob applied the commit he received on /m")
        let groupInfo = try XCTUnwrap(try bob.next(on: "relay/g/\(convoID)/i"))
        XCTAssertEqual(groupInfo.payload, MLSMessage(body: .groupInfo(addCarol.groupInfo)).encoded(), "the retained GroupInfo follows the epoch")
        let carolWelcome = try XCTUnwrap(try carol.next(on: "relay/w/\(carol.clientID)"), "Carol's Welcome")
        try carol.join(carolWelcome.payload, convoID: convoID)
        XCTAssertEqual(try carol.mqtt.subscribe("relay/g/\(convoID)/m", noLocal: true), .grantedQoS1)

        // XRPC → MQTT: Bob sends with sendMessage; Alice and Carol hear it on /m.
        XCTAssertEqual(try bob.sendOverXRPC("from xrpc", in: convoID), 200)
        XCTAssertEqual(try alice.hear(1, in: convoID), ["from xrpc"])
        XCTAssertEqual(try carol.hear(1, in: convoID), ["from xrpc"])
        // MQTT → XRPC: Carol publishes; Bob reads with getMessages.
        XCTAssertEqual(try carol.say("from mqtt", in: convoID).reasonCode, .success)
        // Bob reads it once with getMessages (on a copy of his group: a message decrypts once).
        let bobGroup = bob.user.groups[convoID]
        bob.user.readSeq[convoID] = try chat.lastSeq(bob.user, convoID) - 1
        XCTAssertEqual(try chat.sync(bob.user, convoID), ["from mqtt"])
        bob.user.groups[convoID] = bobGroup
        XCTAssertEqual(try alice.hear(1, in: convoID), ["from mqtt"])
        XCTAssertEqual(try bob.hear(1, in: convoID), ["from mqtt"], "and over MQTT too (his own XRPC message skipped)")

        // A non-member is refused on subscribe and on publish.
        let dave = RelayTestUser(service)
        try dave.connect()
        XCTAssertEqual(try dave.mqtt.subscribe("relay/g/\(convoID)/m"), .notAuthorized)
        XCTAssertEqual(try dave.mqtt.subscribe("relay/g/\(convoID)/#"), .notAuthorized)
        XCTAssertEqual(try dave.mqtt.subscribe("relay/w/\(bob.clientID)"), .notAuthorized)
        XCTAssertEqual(try dave.mqtt.subscribe("relay/#"), .notAuthorized)
        var aliceCopy = try XCTUnwrap(alice.user.groups[convoID])
        let stolen = try dave.publish("relay/g/\(convoID)/m", try aliceCopy.encrypt(Array("x".utf8)).encoded())
        XCTAssertEqual(stolen.reasonCode, .notAuthorized)
        XCTAssertEqual(try dave.publish("relay/g/\(convoID)/m", Array("not mls".utf8)).reasonCode, .payloadFormatInvalid)

        // An invalid commit (its signature broken) is refused with the check named; the group goes on.
        var forged = try XCTUnwrap(bob.user.groups[convoID]).update().commit
        guard case .publicMessage(var plain) = forged.body else { return XCTFail("a public commit") }
        plain.auth.signature[0] ^= 1
        forged = MLSMessage(body: .publicMessage(plain))
        let refused = try bob.publish("relay/g/\(convoID)/m", forged.encoded())
        XCTAssertEqual(refused.reasonCode, .unspecifiedError)
        XCTAssertTrue(refused.properties.reasonString?.hasPrefix("InvalidCommit:") == true, "\(String(describing: refused.properties.reasonString))")
        XCTAssertEqual(try chat.epoch(bob.user, convoID), 2)
        XCTAssertEqual(try alice.say("still here", in: convoID).reasonCode, .success)
        XCTAssertEqual(try bob.hear(1, in: convoID), ["still here"])
        XCTAssertEqual(try carol.hear(1, in: convoID), ["still here"])

        // Bob goes offline (his Session stays); three messages; he comes back with Clean Start = 0.
        try bob.mqtt.disconnect()
        for text in ["one", "two", "three"] { XCTAssertEqual(try alice.say(text, in: convoID).reasonCode, .success) }
        let back = try bob.connect(cleanStart: false, expiry: 300)
        XCTAssertTrue(back.sessionPresent)
        XCTAssertEqual(try bob.hear(3, in: convoID), ["one", "two", "three"])
        XCTAssertNil(try bob.next(on: "relay/g/\(convoID)/m", timeout: 1), "exactly what he missed")
        XCTAssertEqual(try carol.hear(3, in: convoID), ["one", "two", "three"])

        // Alice removes Carol: Carol receives that commit, then nothing more; she may not subscribe again.
        let carolLeaf = try XCTUnwrap(carol.user.groups[convoID]?.ownLeaf)
        let removal = try group.remove(leaves: [carolLeaf])
        XCTAssertEqual(try alice.publish("relay/g/\(convoID)/m", removal.commit.encoded()).reasonCode, .success)
        group = removal.group
        alice.user.groups[convoID] = group
        let removalSeen = try XCTUnwrap(try carol.next(on: "relay/g/\(convoID)/m"))
        XCTAssertEqual(removalSeen.payload, removal.commit.encoded())
        XCTAssertEqual(try bob.drain(convoID), [])
        XCTAssertEqual(bob.user.groups[convoID]?.epoch, 3, "Bob applied the removal")
        XCTAssertEqual(try alice.say("just us", in: convoID).reasonCode, .success)
        XCTAssertEqual(try bob.hear(1, in: convoID), ["just us"])
        XCTAssertNil(try carol.next(on: "relay/g/\(convoID)/m", timeout: 1), "the removed member's subscription ended")
        XCTAssertEqual(try carol.mqtt.subscribe("relay/g/\(convoID)/m"), .notAuthorized)
        XCTAssertEqual(try carol.say("still here?", in: convoID).reasonCode, .notAuthorized)
    }
}
