import Foundation
import MLS
import Primitives
import XCTest

/// Issue 13, one test per hole: the service accepts a change only if every honest member can follow
/// it, and no one appears in a group who did not join it. Each refused request gets its XRPC error
/// and leaves the database rows exactly as they were (read from PostgreSQL, not through the API).
final class IntegrityTests: ServiceTestCase {
    func chat(_ count: Int) throws -> Chat { try ChatFlow(service: try service).chat(count) }

    func call(_ method: String, as user: MLSTestUser, _ body: [String: Any]) throws -> ServiceHarness.Reply {
        try service.call("blue.catbird.mls." + method, as: user.identity, json: body)
    }

    func commitGroupChange(_ chat: Chat, as user: MLSTestUser, _ commit: MLSMessage) throws -> ServiceHarness.Reply {
        try call("commitGroupChange", as: user, ["convoId": chat.convo, "commit": MLSTestUser.bytes(commit)])
    }

    func createConvoBody(_ group: Group, groupInfo: GroupInfo, hashes: [(MLSTestUser, KeyPackageBundle)]? = nil,
                         commit: MLSMessage? = nil, welcome: MLSMessage? = nil) -> [String: Any] {
        var body: [String: Any] = [
            "groupId": hex(group.groupID), "cipherSuite": "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(groupInfo))),
        ]
        if let hashes { body["keyPackageHashes"] = hashes.map { ["did": $0.0.did, "hash": hex($0.1.ref)] } }
        if let commit { body["commit"] = MLSTestUser.bytes(commit) }
        if let welcome { body["welcomeMessage"] = MLSTestUser.bytes(welcome) }
        return body
    }

    /// The reply is the XRPC error `status` `name`.
    func expect(_ reply: ServiceHarness.Reply, _ status: Int, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reply.status, status, "\(reply.json)", file: file, line: line)
        XCTAssertEqual(reply.error, name, file: file, line: line)
    }

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// `output`'s commit with its Commit changed, framed again as the committer would (signature,
    /// confirmation and membership tags), so that only the change is judged.
    func altered(_ output: CommitOutput, _ change: (inout Commit) throws -> Void) throws -> MLSMessage {
        guard case .publicMessage(let message) = output.commit.body, case .commit(var commit) = message.content.content else {
            throw XCTestError(.failureWhileWaiting)
        }
        try change(&commit)
        var content = message.content
        content.content = .commit(commit)
        return output.resealed(content)
    }

    /// Re-signs a committer's path leaf at `leaf` of `group`.
    func resign(_ node: inout LeafNode, by user: MLSTestUser, group: Group, leaf: UInt32) throws {
        node.signature = try MLSTestUser.defaultSuite.signWithLabel(
            user.signingKey, label: "LeafNodeTBS", content: node.tbs(groupID: group.groupID, leafIndex: leaf).encoded())
    }

    // MARK: Members only from their own KeyPackages

    func test_createConvo_withAFabricatedLeafForAnotherDID_isRefused_andStoresNothing() throws {
        let flow = ChatFlow(service: try service)
        let mallory = flow.user(), alice = flow.user(), bob = flow.user()
        let bobPackage = try flow.publishKeyPackage(bob)
        let alicePackage = try flow.publishKeyPackage(alice)
        // Mallory makes a leaf claiming Alice's DID with keys of her own.
        let now = UInt64(Date().timeIntervalSince1970)
        let forged = try KeyPackageBundle.generate(suite: MLSTestUser.defaultSuite, credential: alice.credential,
                                                   signingKey: try MLSTestUser.defaultSuite.signatureScheme.generatePrivateKey(),
                                                   lifetime: Lifetime(notBefore: now - 60, notAfter: now + 86_400))
        let group = try Group.create(suite: MLSTestUser.defaultSuite, credential: mallory.credential, signingKey: mallory.signingKey)
        let output = try group.add(keyPackages: [bobPackage.keyPackage, forged.keyPackage], includePath: false)
        let rows = try DatabaseRows(try service)
        let convo = hex(group.groupID)
        let before = try rows.snapshot(convo: convo, owners: [alice.did, bob.did, mallory.did])
        XCTAssertEqual(before.count, 2, "Alice's and Bob's packages, unconsumed")

        let namingRealPackages = try call("createConvo", as: mallory, createConvoBody(
            group, groupInfo: output.groupInfo, hashes: [(bob, bobPackage), (alice, alicePackage)]))
        expect(namingRealPackages, 400, "InvalidGroupInfo")
        let withCommit = try call("createConvo", as: mallory, createConvoBody(
            group, groupInfo: output.groupInfo, commit: output.commit, welcome: output.welcome))
        expect(withCommit, 404, "KeyPackageNotFound")
        let namingNothing = try call("createConvo", as: mallory, createConvoBody(group, groupInfo: output.groupInfo))
        expect(namingNothing, 400, "InvalidGroupInfo")
        XCTAssertEqual(try rows.snapshot(convo: convo, owners: [alice.did, bob.did, mallory.did]), before)
    }

    func test_createConvo_withAForeignKeyPackageHash_isRefused_andConsumesNothing() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user(), carol = flow.user()
        let bobPackage = try flow.publishKeyPackage(bob)
        let carolPackage = try flow.publishKeyPackage(carol)
        let group = try Group.create(suite: MLSTestUser.defaultSuite, credential: alice.credential, signingKey: alice.signingKey)
        let output = try group.add(keyPackages: [bobPackage.keyPackage], includePath: false)
        let rows = try DatabaseRows(try service)
        let convo = hex(group.groupID)
        let before = try rows.snapshot(convo: convo, owners: [alice.did, bob.did, carol.did])
        let carolsBefore = try rows.keyPackages(of: [carol.did])

        let extra = try call("createConvo", as: alice, createConvoBody(
            group, groupInfo: output.groupInfo, hashes: [(bob, bobPackage), (carol, carolPackage)], welcome: output.welcome))
        expect(extra, 400, "InvalidGroupInfo")
        let instead = try call("createConvo", as: alice, createConvoBody(
            group, groupInfo: output.groupInfo, hashes: [(carol, carolPackage)], welcome: output.welcome))
        expect(instead, 400, "InvalidGroupInfo")
        let besideTheCommit = try call("createConvo", as: alice, createConvoBody(
            group, groupInfo: output.groupInfo, hashes: [(carol, carolPackage)], commit: output.commit, welcome: output.welcome))
        expect(besideTheCommit, 400, "InvalidCommit")
        XCTAssertEqual(try rows.snapshot(convo: convo, owners: [alice.did, bob.did, carol.did]), before)

        // Naming exactly Bob's package works, and consumes it and only it.
        let good = try call("createConvo", as: alice, createConvoBody(
            group, groupInfo: output.groupInfo, hashes: [(bob, bobPackage)], welcome: output.welcome))
        XCTAssertEqual(good.status, 200, "\(good.json)")
        XCTAssertEqual(try rows.keyPackages(of: [carol.did]), carolsBefore, "Carol's package stays unused")
        XCTAssertTrue(try rows.keyPackages(of: [bob.did]).joined().contains("\"consumed_in_convo\":\"\(convo)\""))
    }

    func test_createConvo_withAnUnsignedInitialCommit_isRefused() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user()
        let bobPackage = try flow.publishKeyPackage(bob)
        let group = try Group.create(suite: MLSTestUser.defaultSuite, credential: alice.credential, signingKey: alice.signingKey)
        let output = try group.add(keyPackages: [bobPackage.keyPackage], includePath: false)
        guard case .publicMessage(var message) = output.commit.body else { return XCTFail("not a PublicMessage") }
        let rows = try DatabaseRows(try service)
        let convo = hex(group.groupID)
        let before = try rows.snapshot(convo: convo, owners: [alice.did, bob.did])

        for signature in [[UInt8](repeating: 0, count: message.auth.signature.count), []] {
            message.auth.signature = signature
            let reply = try call("createConvo", as: alice, createConvoBody(
                group, groupInfo: output.groupInfo, hashes: [(bob, bobPackage)],
                commit: MLSMessage(body: .publicMessage(message)), welcome: output.welcome))
            expect(reply, 400, "InvalidCommit")
            XCTAssertTrue((reply.json["message"] as? String ?? "").contains("signature"), "\(reply.json)")
        }
        // A commit with a path is refused too: its signature covers an epoch-0 leaf the service cannot know.
        let withPath = try group.add(keyPackages: [bobPackage.keyPackage])
        let pathReply = try call("createConvo", as: alice, createConvoBody(
            group, groupInfo: withPath.groupInfo, commit: withPath.commit, welcome: withPath.welcome))
        expect(pathReply, 400, "InvalidCommit")
        XCTAssertEqual(try rows.snapshot(convo: convo, owners: [alice.did, bob.did]), before)

        let signed = try call("createConvo", as: alice, createConvoBody(
            group, groupInfo: output.groupInfo, hashes: [(bob, bobPackage)], commit: output.commit, welcome: output.welcome))
        XCTAssertEqual(signed.status, 200, "\(signed.json)")
    }

    func test_addMembers_withAFabricatedKeyPackage_isRefused_andStoresNothing() throws {
        let chat = try chat(2)
        let (alice, bob) = (chat.users[0], chat.users[1])
        let carol = chat.flow.user()
        _ = try chat.flow.publishKeyPackage(carol)
        // Bob makes a package in Carol's name with his own keys; it was never published.
        let now = UInt64(Date().timeIntervalSince1970)
        let forged = try KeyPackageBundle.generate(suite: MLSTestUser.defaultSuite, credential: carol.credential,
                                                   signingKey: try MLSTestUser.defaultSuite.signatureScheme.generatePrivateKey(),
                                                   lifetime: Lifetime(notBefore: now - 60, notAfter: now + 86_400))
        let output = try XCTUnwrap(bob.groups[chat.convo]).add(keyPackages: [forged.keyPackage])
        let rows = try DatabaseRows(try service)
        let before = try rows.snapshot(convo: chat.convo, owners: [alice.did, bob.did, carol.did])
        let reply = try call("addMembers", as: bob, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(output.commit), "welcomeMessage": MLSTestUser.bytes(output.welcome!),
        ])
        expect(reply, 404, "KeyPackageNotFound")
        XCTAssertEqual(try rows.snapshot(convo: chat.convo, owners: [alice.did, bob.did, carol.did]), before)
    }

    func test_commit_whoseLeafTakesAnotherDID_isRefused() throws {
        let chat = try chat(3)
        let (alice, bob) = (chat.users[0], chat.users[1])
        let group = try XCTUnwrap(bob.groups[chat.convo])
        let output = try group.update()
        let impostor = try altered(output) { commit in
            commit.path!.leafNode.credential = alice.credential
            try resign(&commit.path!.leafNode, by: bob, group: group, leaf: group.ownLeaf)
        }
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        let reply = try commitGroupChange(chat, as: bob, impostor)
        expect(reply, 400, "InvalidCommit")
        XCTAssertEqual(try rows.convo(chat.convo), before)
    }

    // MARK: Commits that split the group

    func test_commitWithADroppedPathSecret_isRefused_andItsMemberCouldNotFollowIt() throws {
        let chat = try chat(4)
        let (alice, dave) = (chat.users[0], chat.users[3])
        let output = try XCTUnwrap(alice.groups[chat.convo]).update()
        // Alice's path: node 1 to Bob; node 3 to the resolution of node 5, Carol and Dave. Dave's goes.
        let dropped = try altered(output) { commit in
            XCTAssertEqual(commit.path!.nodes[1].encryptedPathSecret.count, 2)
            commit.path!.nodes[1].encryptedPathSecret.removeLast()
        }
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        let reply = try commitGroupChange(chat, as: alice, dropped)
        expect(reply, 400, "InvalidCommit")
        XCTAssertTrue((reply.json["message"] as? String ?? "").contains("ciphertextCountMismatch"), "\(reply.json)")
        XCTAssertEqual(try rows.convo(chat.convo), before)
        var daves = try XCTUnwrap(dave.groups[chat.convo])
        XCTAssertThrowsError(try daves.process(dropped), "Dave has no path secret in it")

        // The commit as Alice made it goes through, and Dave follows it.
        XCTAssertEqual(try commitGroupChange(chat, as: alice, output.commit).status, 200)
        _ = try chat.flow.sync(dave, chat.convo)
        XCTAssertEqual(dave.groups[chat.convo]?.epoch, output.group.epoch)
    }

    func test_commitReusingAnEncryptionKey_isRefused() throws {
        let chat = try chat(3)
        let alice = chat.users[0]
        let group = try XCTUnwrap(alice.groups[chat.convo])
        let output = try group.update()
        let oldKey = try XCTUnwrap(group.tree.leafNode(at: group.ownLeaf)?.encryptionKey)
        let bobsKey = try XCTUnwrap(group.tree.leafNode(at: 1)?.encryptionKey)
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        for key in [oldKey, bobsKey] {
            let reused = try altered(output) { commit in
                commit.path!.leafNode.encryptionKey = key
                try resign(&commit.path!.leafNode, by: alice, group: group, leaf: group.ownLeaf)
            }
            let reply = try commitGroupChange(chat, as: alice, reused)
            expect(reply, 400, "InvalidCommit")
        }
        let reusedNode = try altered(output) { $0.path!.nodes[0].encryptionKey = bobsKey }
        XCTAssertEqual(try commitGroupChange(chat, as: alice, reusedNode).error, "InvalidCommit")
        XCTAssertEqual(try rows.convo(chat.convo), before)
    }

    func test_createConvo_withDuplicateUnmergedLeaves_isRefused() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user()
        let others = (0..<4).map { _ in flow.user() }
        let bundles = try others.map { try flow.publishKeyPackage($0) }
        // Alice adds three with a path, removes the first, then adds the fourth without a path:
        // the fourth sits at leaf 1, unmerged at the root (node 3).
        var group = try Group.create(suite: MLSTestUser.defaultSuite, credential: alice.credential, signingKey: alice.signingKey)
        group = try group.add(keyPackages: bundles[0...2].map(\.keyPackage)).group
        group = try group.remove(leaves: [1]).group
        let output = try group.add(keyPackages: [bundles[3].keyPackage], includePath: false)
        guard case .parent(var root)? = output.group.tree.node(at: 3) else { return XCTFail("node 3 should be a parent") }
        XCTAssertEqual(root.unmergedLeaves, [1])
        root.unmergedLeaves = [1, 1]
        var wire = output.group.tree.ratchetTree
        wire.nodes[3] = .parent(root)
        let tampered = try PublicRatchetTree(suite: MLSTestUser.defaultSuite, tree: wire)
        var info = output.groupInfo
        info.groupContext.treeHash = tampered.treeHash
        info.extensions = info.extensions.map { $0.extensionType == .ratchetTree ? .ratchetTree(wire) : $0 }
        try info.sign(with: alice.signingKey, suite: MLSTestUser.defaultSuite)
        let named = Array(zip(others, bundles).dropFirst())

        let rows = try DatabaseRows(try service)
        let convo = hex(group.groupID)
        let owners = [alice.did] + others.map(\.did)
        let before = try rows.snapshot(convo: convo, owners: owners)
        let reply = try call("createConvo", as: alice, createConvoBody(group, groupInfo: info, hashes: named, welcome: output.welcome))
        expect(reply, 400, "InvalidGroupInfo")
        XCTAssertTrue((reply.json["message"] as? String ?? "").contains("unmergedLeavesNotSorted"), "\(reply.json)")
        XCTAssertEqual(try rows.snapshot(convo: convo, owners: owners), before)
        // The GroupInfo as Alice's group has it passes the tree and KeyPackage checks; it stops only at
        // the Welcome, which (made by the last commit) covers the last member alone.
        let untampered = try call("createConvo", as: alice, createConvoBody(group, groupInfo: output.groupInfo, hashes: named,
                                                                             welcome: output.welcome))
        XCTAssertEqual(untampered.error, "InvalidWelcome", "\(untampered.json)")
        XCTAssertEqual(try rows.snapshot(convo: convo, owners: owners), before)
    }

    // MARK: Extensions and ReInit

    func test_commitWithMalformedRequiredCapabilities_isRefused() throws {
        let chat = try chat(2)
        let alice = chat.users[0]
        let output = try XCTUnwrap(alice.groups[chat.convo]).commit(proposals: [.groupContextExtensions([])])
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        for data: [UInt8] in [[0x05, 0x00], RequiredCapabilities(credentialTypes: [.basic]).encoded() + [0]] {
            let malformed = try altered(output) {
                $0.proposals = [.proposal(.groupContextExtensions([Extension(extensionType: .requiredCapabilities, extensionData: data)]))]
            }
            let reply = try commitGroupChange(chat, as: alice, malformed)
            expect(reply, 400, "InvalidCommit")
            XCTAssertTrue((reply.json["message"] as? String ?? "").contains("extension 3"), "\(reply.json)")
        }
        XCTAssertEqual(try rows.convo(chat.convo), before)
    }

    func test_reInitFreezesTheConversation_laterMessagesAndCommitsGet409() throws {
        let chat = try chat(2)
        let (alice, bob) = (chat.users[0], chat.users[1])
        let output = try XCTUnwrap(alice.groups[chat.convo]).commit(
            proposals: [.reInit(ReInit(groupID: SecureRandom.bytes(16), cipherSuite: MLSTestUser.defaultSuite.rawValue))])
        XCTAssertEqual(try commitGroupChange(chat, as: alice, output.commit).status, 200)
        alice.groups[chat.convo] = output.group
        alice.readSeq[chat.convo] = try chat.flow.lastSeq(alice, chat.convo)
        _ = try chat.flow.sync(bob, chat.convo)
        let rows = try DatabaseRows(try service)
        XCTAssertEqual(try rows.frozenEpoch(chat.convo), Int64(output.group.epoch))
        let before = try rows.convo(chat.convo)

        let message = try chat.flow.send(bob, chat.convo, "still here?")
        expect(message, 409, "GroupFrozen")
        let commit = try commitGroupChange(chat, as: alice, try output.group.update().commit)
        expect(commit, 409, "GroupFrozen")
        var bobs = try XCTUnwrap(bob.groups[chat.convo])
        let leave = try call("leaveConvo", as: bob, ["convoId": chat.convo, "proposal": MLSTestUser.bytes(try bobs.proposeSelfRemove())])
        expect(leave, 409, "GroupFrozen")
        XCTAssertEqual(try rows.convo(chat.convo), before)
    }

    // MARK: Pending proposals

    func test_commitSkippingAPendingSelfRemove_isRefused() throws {
        let chat = try chat(3)
        let (alice, bob) = (chat.users[0], chat.users[1])
        var bobs = try XCTUnwrap(bob.groups[chat.convo])
        let leave = try call("leaveConvo", as: bob, ["convoId": chat.convo, "proposal": MLSTestUser.bytes(try bobs.proposeSelfRemove())])
        XCTAssertEqual(leave.status, 200, "\(leave.json)")
        // Asking again (another proposal, same leaf) keeps one request: two Removes of one leaf
        // could not both be committed (RFC 9420 §12.2).
        let again = try call("leaveConvo", as: bob, ["convoId": chat.convo,
                                                     "proposal": MLSTestUser.bytes(try bobs.proposeSelfRemove(authenticatedData: [1]))])
        XCTAssertEqual(again.status, 200, "\(again.json)")
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        XCTAssertEqual(before.filter { $0.hasPrefix("pending_proposals") }.count, 1)

        let skipping = try commitGroupChange(chat, as: alice, try XCTUnwrap(alice.groups[chat.convo]).update().commit)
        expect(skipping, 409, "PendingProposals")
        let byTheLeaver = try commitGroupChange(chat, as: bob, try bobs.update().commit)
        expect(byTheLeaver, 409, "PendingProposals")
        XCTAssertEqual(try rows.convo(chat.convo), before)

        // Alice reads the proposal and commits it by reference: Bob is gone.
        _ = try chat.flow.sync(alice, chat.convo)
        let covering = try XCTUnwrap(alice.groups[chat.convo]).commit()
        let reply = try commitGroupChange(chat, as: alice, covering.commit)
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        let members = try service.call("blue.catbird.mls.getConvo", as: alice.identity, query: [("convoId", chat.convo)])
        XCTAssertFalse(((members.json["members"] as? [[String: Any]]) ?? []).contains { $0["did"] as? String == bob.did })
        XCTAssertTrue(try rows.convo(chat.convo).filter { $0.hasPrefix("pending_proposals") }.isEmpty)
    }
}
