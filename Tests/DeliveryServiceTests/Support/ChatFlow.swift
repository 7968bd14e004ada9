import Basics
import Foundation
import MLS
import XCTest

/// The client side of a chat, driven through the real API: each step asserts the server's answer.
struct ChatFlow {
    let service: ServiceHarness
    var suite = MLSTestUser.defaultSuite
    /// The suite's name as the API carries it.
    var suiteName = "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519"
    /// Sealed handshakes (issue 17): conversations are created with handshake "sealed", and every
    /// member frames its commits and proposals as PrivateMessages and accepts only those from other
    /// members (OpenMLS's pure-ciphertext policy, the Catbird app's).
    var sealed = false

    var configuration: GroupConfiguration { sealed ? GroupConfiguration(wireFormatPolicy: .pureCiphertext) : .default }

    func user() -> MLSTestUser { MLSTestUser(service.makeUser(), suite: suite) }

    @discardableResult
    func publishKeyPackage(_ user: MLSTestUser, file: StaticString = #filePath, line: UInt = #line) throws -> KeyPackageBundle {
        let bundle = try user.makeKeyPackage()
        let reply = try service.call("blue.catbird.mls.publishKeyPackage", as: user.identity, json: [
            "keyPackage": MLSTestUser.bytes(MLSMessage(body: .keyPackage(bundle.keyPackage))),
            "cipherSuite": suiteName,
        ])
        XCTAssertEqual(reply.status, 200, "\(reply.json)", file: file, line: line)
        return bundle
    }

    func keyPackages(as user: MLSTestUser, for others: [MLSTestUser]) throws -> [KeyPackage] {
        let reply = try service.call("blue.catbird.mls.getKeyPackages", as: user.identity,
                                     query: others.map { ("dids", $0.did) })
        XCTAssertEqual(reply.status, 200)
        let refs = reply.json["keyPackages"] as? [[String: Any]] ?? []
        return try refs.map { ref in
            // Served as published: an MLSMessage(KeyPackage) or a bare KeyPackage.
            guard let bytes = Base64Test.decode(ref["keyPackage"]) else { throw XCTestError(.failureWhileWaiting) }
            return try KeyPackage.decodePublished(bytes).keyPackage
        }
    }

    /// `creator` creates a group with `invitees` (each has published a KeyPackage) and the
    /// conversation on the server; returns the convo id.
    func createConvo(_ creator: MLSTestUser, with invitees: [MLSTestUser]) throws -> String {
        let (reply, convoID) = try tryCreateConvo(creator, with: invitees)
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        return try XCTUnwrap(convoID)
    }

    /// createConvo as `createConvo` sends it, whatever the server answers; the convo id on 200.
    func tryCreateConvo(_ creator: MLSTestUser, with invitees: [MLSTestUser]) throws -> (ServiceHarness.Reply, String?) {
        var group = try Group.create(suite: creator.suite, credential: creator.credential, signingKey: creator.signingKey,
                                     configuration: configuration)
        var body: [String: Any] = [
            "groupId": hex(group.groupID), "cipherSuite": suiteName,
            "metadata": ["name": "test chat"],
        ]
        if sealed { body["handshake"] = "sealed" }
        if invitees.isEmpty {
            let output = try group.update()
            group = output.group
            body["groupInfo"] = MLSTestUser.bytes(MLSMessage(body: .groupInfo(output.groupInfo)))
        } else {
            let packages = try keyPackages(as: creator, for: invitees)
            let output = try group.add(keyPackages: packages, includePath: false)
            group = output.group
            // A sealed initial commit shows no Adds: the packages are named.
            if sealed {
                body["keyPackageHashes"] = try packages.map { package in
                    guard case .basic(let identity) = package.leafNode.credential else { throw XCTestError(.failureWhileWaiting) }
                    return ["did": String(decoding: identity, as: UTF8.self), "hash": hex(package.reference(suite: suite))]
                }
            }
            body["groupInfo"] = MLSTestUser.bytes(MLSMessage(body: .groupInfo(output.groupInfo)))
            body["commit"] = MLSTestUser.bytes(output.commit)
            body["welcomeMessage"] = MLSTestUser.bytes(output.welcome!)
        }
        let reply = try service.call("blue.catbird.mls.createConvo", as: creator.identity, json: body)
        guard reply.status == 200, let convoID = reply.json["id"] as? String else { return (reply, nil) }
        creator.groups[convoID] = group
        creator.readSeq[convoID] = (reply.json["epoch"] as? Int ?? 0) > 0 && !invitees.isEmpty ? 1 : 0
        return (reply, convoID)
    }

    /// Fetches the caller's Welcome, joins, and confirms.
    func join(_ user: MLSTestUser, _ convoID: String) throws {
        let reply = try service.call("blue.catbird.mls.getWelcome", as: user.identity, query: [("convoId", convoID)])
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        let message = try MLSMessage(decoding: try XCTUnwrap(Base64Test.decode(reply.json["welcome"])))
        guard case .welcome(let welcome) = message.body,
              let bundle = welcome.secrets.lazy.compactMap({ user.bundles[$0.newMember] }).first else {
            throw XCTestError(.failureWhileWaiting)
        }
        let group = try Group.join(welcome: welcome, keyPackage: bundle, configuration: configuration)
        user.groups[convoID] = group
        user.readSeq[convoID] = try lastSeq(user, convoID)
        let confirm = try service.call("blue.catbird.mls.confirmWelcome", as: user.identity,
                                       json: ["convoId": convoID, "success": true])
        XCTAssertEqual(confirm.status, 200)
    }

    func lastSeq(_ user: MLSTestUser, _ convoID: String) throws -> Int {
        let reply = try service.call("blue.catbird.mls.getMessages", as: user.identity, query: [("convoId", convoID), ("limit", "100")])
        return reply.json["lastSeq"] as? Int ?? 0
    }

    /// Encrypts and sends `text`; returns the server's reply.
    @discardableResult
    func send(_ user: MLSTestUser, _ convoID: String, _ text: String) throws -> ServiceHarness.Reply {
        var group = try XCTUnwrap(user.groups[convoID])
        let message = try group.encrypt(Array(text.utf8))
        user.groups[convoID] = group
        return try service.call("blue.catbird.mls.sendMessage", as: user.identity, json: [
            "convoId": convoID, "msgId": MessageID.next(), "epoch": Int(group.epoch), "ciphertext": MLSTestUser.bytes(message),
        ])
    }

    /// Reads everything after the user's last seq: applies other members' commits, decrypts
    /// application messages; returns the texts.
    func sync(_ user: MLSTestUser, _ convoID: String) throws -> [String] {
        var texts: [String] = []
        while true {
            let since = user.readSeq[convoID] ?? 0
            let reply = try service.call("blue.catbird.mls.getMessages", as: user.identity,
                                         query: [("convoId", convoID), ("sinceSeq", String(since)), ("limit", "100")])
            XCTAssertEqual(reply.status, 200, "\(reply.json)")
            let messages = reply.json["messages"] as? [[String: Any]] ?? []
            if messages.isEmpty { return texts }
            for entry in messages {
                let seq = entry["seq"] as? Int ?? 0
                user.readSeq[convoID] = seq
                // A sender already holds its own messages: it moved to the next epoch when it
                // committed, and cannot decrypt its own application messages.
                if entry["sender"] as? String == user.did { continue }
                var group = try XCTUnwrap(user.groups[convoID])
                let message = try MLSMessage(decoding: try XCTUnwrap(Base64Test.decode(entry["ciphertext"])))
                if entry["messageType"] as? String != "app" {
                    _ = try group.process(message)
                } else {
                    let (data, _) = try group.decrypt(message)
                    texts.append(String(decoding: data, as: UTF8.self))
                }
                user.groups[convoID] = group
            }
        }
    }

    /// Sends `output` (a commit `user` made) with its GroupInfo through commitGroupChange; on 200 the
    /// user moves to the new epoch.
    func commitGroupChange(_ user: MLSTestUser, _ convoID: String, _ output: CommitOutput) throws -> ServiceHarness.Reply {
        let reply = try service.call("blue.catbird.mls.commitGroupChange", as: user.identity, json: [
            "convoId": convoID, "commit": MLSTestUser.bytes(output.commit),
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(output.groupInfo))),
        ])
        if reply.status == 200 { user.groups[convoID] = output.group }
        return reply
    }

    /// `admin` commits the removal of `target` through removeMember; on 200 the admin moves to the new epoch.
    func remove(_ target: MLSTestUser, by admin: MLSTestUser, from convoID: String, idempotencyKey: String) throws -> ServiceHarness.Reply {
        let leaf = try XCTUnwrap(target.groups[convoID]?.ownLeaf)
        let removal = try XCTUnwrap(admin.groups[convoID]).remove(leaves: [leaf])
        let reply = try service.call("blue.catbird.mls.removeMember", as: admin.identity, json: [
            "convoId": convoID, "targetDid": target.did, "commit": MLSTestUser.bytes(removal.commit),
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(removal.groupInfo))), "idempotencyKey": idempotencyKey,
        ])
        if reply.status == 200 { admin.groups[convoID] = removal.group }
        return reply
    }

    func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    func epoch(_ user: MLSTestUser, _ convoID: String) throws -> Int? {
        try service.call("blue.catbird.mls.getEpoch", as: user.identity, query: [("convoId", convoID)]).json["currentEpoch"] as? Int
    }
}

/// A conversation of `users` on the real server, each holding its group.
struct Chat {
    let flow: ChatFlow
    let users: [MLSTestUser]
    let convo: String
}

extension ChatFlow {
    /// `count` users; the first creates the conversation with the others, who join. `sealed`: the
    /// conversation has sealed handshakes, and every member frames its own as PrivateMessages.
    func chat(_ count: Int, sealed: Bool = false) throws -> Chat {
        var flow = self
        flow.sealed = sealed
        let users = (0..<count).map { _ in flow.user() }
        for user in users.dropFirst() { try flow.publishKeyPackage(user) }
        let convo = try flow.createConvo(users[0], with: Array(users.dropFirst()))
        for user in users.dropFirst() { try flow.join(user, convo) }
        return Chat(flow: flow, users: users, convo: convo)
    }
}
