import Basics
import Foundation
import MLS
import MQTT
import MQTTClient
import Primitives
import XCTest

/// A chat participant speaking the Relay protocol over MQTT: an `MLSTestUser` (identity, MLS keys
/// and groups) with a client_id, connecting with a fresh service-auth token each time.
final class RelayTestUser {
    let user: MLSTestUser
    let clientID: String
    let service: ServiceHarness
    var client: MQTTClient?
    /// Application messages this user sent (a sender cannot decrypt its own: skipped when heard).
    private var sent: Set<[UInt8]> = []
    /// Messages received while waiting for another topic.
    private var buffered: [MQTTClient.Message] = []
    /// Whether this connection subscribed to relay/s/{client_id}.
    private var syncSubscribed = false

    init(_ service: ServiceHarness, user: MLSTestUser? = nil) {
        self.service = service
        self.user = user ?? MLSTestUser(service.makeUser())
        clientID = Hex.encode(SecureRandom.bytes(16))
    }

    var did: String { user.did }

    /// The options of a CONNECT as this user with a fresh token (for `lxm`, default mqttConnect).
    func options(cleanStart: Bool = true, expiry: UInt32 = 0, lxm: String = "blue.catbird.mls.mqttConnect",
                 clientID: String? = nil) -> MQTTClient.Options {
        MQTTClient.Options(clientIdentifier: clientID ?? self.clientID, userName: did,
                           password: Array(user.identity.token(audience: ServiceHarness.serviceDID, nsid: lxm).utf8),
                           cleanStart: cleanStart, sessionExpiryInterval: expiry, keepAlive: 60)
    }

    /// Connects to the service's MQTT listener (or another node's, on `port`).
    @discardableResult
    func connect(cleanStart: Bool = true, expiry: UInt32 = 0, port: Int? = nil) throws -> MQTTClient {
        let port = try port ?? XCTUnwrap(service.app.mqttPort)
        let client = try MQTTClient(host: "127.0.0.1", port: port, options: options(cleanStart: cleanStart, expiry: expiry))
        self.client = client
        buffered = []
        syncSubscribed = false
        return client
    }

    var mqtt: MQTTClient { get throws { try XCTUnwrap(client, "\(did) is not connected") } }

    /// Publishes `count` fresh KeyPackages on relay/k/{client_id}.
    func publishKeyPackages(_ count: Int) throws -> ReasonCode? {
        let packages = try (0..<count).map { _ in MLSMessage(body: .keyPackage(try user.makeKeyPackage().keyPackage)).encoded() }
        return try mqtt.publish(topic: "relay/k/\(clientID)", payload: CBORArray.encode(byteStrings: packages))?.reasonCode
    }

    func publish(_ topic: String, _ payload: [UInt8]) throws -> PubAckPacket {
        try XCTUnwrap(try mqtt.publish(topic: topic, payload: payload))
    }

    /// The next message within `timeout` seconds on `topic` (others are skipped).
    func next(on topic: String, timeout: Double = 5) throws -> MQTTClient.Message? {
        if let index = buffered.firstIndex(where: { $0.topic == topic }) { return buffered.remove(at: index) }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let message = try mqtt.receive(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if message.topic == topic { return message }
            buffered.append(message)
        }
        return nil
    }

    /// Joins from a Welcome received on relay/w/{client_id}.
    func join(_ welcomeBytes: [UInt8], convoID: String) throws {
        let message = try MLSMessage(decoding: welcomeBytes)
        guard case .welcome(let welcome) = message.body,
              let bundle = welcome.secrets.lazy.compactMap({ self.user.bundles[$0.newMember] }).first else {
            throw XCTestError(.failureWhileWaiting)
        }
        user.groups[convoID] = try Group.join(welcome: welcome, keyPackage: bundle)
    }

    /// Encrypts `text` for the group and publishes it on /m.
    func say(_ text: String, in convoID: String) throws -> PubAckPacket {
        return try publish("relay/g/\(convoID)/m", try encrypt(text, in: convoID))
    }

    func encrypt(_ text: String, in convoID: String) throws -> [UInt8] {
        var group = try XCTUnwrap(user.groups[convoID])
        let message = try group.encrypt(Array(text.utf8)).encoded()
        user.groups[convoID] = group
        sent.insert(message)
        return message
    }

    /// Sends `text` with XRPC sendMessage instead.
    func sendOverXRPC(_ text: String, in convoID: String) throws -> Int {
        let message = try encrypt(text, in: convoID)
        return try service.call("blue.catbird.mls.sendMessage", as: user.identity, json: [
            "convoId": convoID, "msgId": MessageID.next(), "epoch": Int(try XCTUnwrap(user.groups[convoID]).epoch),
            "ciphertext": ["$bytes": Base64Test.encode(message)],
        ]).status
    }

    /// Reads group messages on /m until `count` texts are decrypted (commits are applied on the way).
    func hear(_ count: Int, in convoID: String, timeout: Double = 10) throws -> [String] {
        var texts: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while texts.count < count {
            guard let message = try next(on: "relay/g/\(convoID)/m", timeout: max(0.1, deadline.timeIntervalSinceNow)) else { break }
            if let text = try apply(message.payload, in: convoID) { texts.append(text) }
        }
        return texts
    }

    var syncTopic: String { "relay/s/\(clientID)" }

    /// Publishes a random nonce on relay/s/{client_id} (subscribed first) and returns, in order,
    /// every message that arrived before the service handed it back (docs/mqtt.md, "Sync").
    func sync(timeout: Double = 30) throws -> [MQTTClient.Message] {
        if !syncSubscribed {
            XCTAssertEqual(try mqtt.subscribe(syncTopic), .grantedQoS1)
            syncSubscribed = true
        }
        let nonce = SecureRandom.bytes(16)
        XCTAssertEqual(try publish(syncTopic, nonce).reasonCode, .success)
        var before = buffered
        buffered = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            guard let message = try mqtt.receive(timeout: max(0.01, deadline.timeIntervalSinceNow)) else {
                XCTFail("the service did not answer the sync within \(timeout) s")
                throw XCTestError(.timeoutWhileWaiting)
            }
            if message.topic == syncTopic {
                if message.payload == nonce { return before }
                continue
            }
            before.append(message)
        }
    }

    /// Applies every group message of the conversation delivered before a sync's answer (others
    /// stay buffered); the texts.
    func drain(_ convoID: String) throws -> [String] {
        var texts: [String] = []
        for message in try sync() {
            guard message.topic == "relay/g/\(convoID)/m" else {
                buffered.append(message)
                continue
            }
            if let text = try apply(message.payload, in: convoID) { texts.append(text) }
        }
        return texts
    }

    /// Applies one group message: a commit or proposal (nil), or the decrypted text.
    func apply(_ bytes: [UInt8], in convoID: String) throws -> String? {
        if sent.contains(bytes) { return nil }
        var group = try XCTUnwrap(user.groups[convoID])
        let message = try MLSMessage(decoding: bytes)
        let text: String?
        if case .privateMessage(let sealed) = message.body, sealed.contentType == .application {
            text = String(decoding: try group.decrypt(message).0, as: UTF8.self)
        } else {
            _ = try group.process(message)
            text = nil
        }
        user.groups[convoID] = group
        return text
    }
}

/// Asserts that the server ends `connection` with a DISCONNECT carrying `code` (any other failure
/// is thrown).
func assertDisconnected(_ connection: MQTTClient, with code: ReasonCode, _ message: String,
                        file: StaticString = #filePath, line: UInt = #line) throws {
    do {
        _ = try connection.receive(timeout: 5)
        XCTFail(message, file: file, line: line)
    } catch MQTTClient.Failure.disconnected(let received, _) {
        XCTAssertEqual(received, code, file: file, line: line)
    }
}
