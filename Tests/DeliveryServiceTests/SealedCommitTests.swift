import Foundation
import MLS
import MLSTestSupport
import Primitives
import XCTest

/// Issue 17 through the real server and PostgreSQL: conversations created with handshake "sealed",
/// whose members (OpenMLS's pure-ciphertext policy, the Catbird app's) commit and propose as
/// PrivateMessages, each commit checked through the GroupInfo of the epoch it creates. Every forgery
/// a dishonest member could sign is refused with its XRPC error and leaves the database rows exactly
/// as they were (read from PostgreSQL, not through the API). `SealedCommitVerifierTests` has the
/// same forgeries against the verifier alone; here they go through the service's own rules too.
final class SealedCommitTests: ChatTestCase {
    /// `count` users in a sealed conversation.
    func chat(_ count: Int) throws -> Chat { try chat(count, sealed: true) }

    /// Sends `commit` through `method` with the GroupInfo (if any), the Welcome (if any) and `extra` fields.
    func send(_ chat: Chat, as user: MLSTestUser, _ commit: MLSMessage, groupInfo: GroupInfo?, welcome: MLSMessage? = nil,
              method: String = "commitGroupChange", extra: [String: Any] = [:]) throws -> ServiceHarness.Reply {
        var body: [String: Any] = ["convoId": chat.convo, "commit": MLSTestUser.bytes(commit)]
        if let groupInfo { body["groupInfo"] = MLSTestUser.bytes(MLSMessage(body: .groupInfo(groupInfo))) }
        if let welcome { body["welcomeMessage"] = MLSTestUser.bytes(welcome) }
        body.merge(extra) { _, new in new }
        return try call(method, as: user, body)
    }

    /// `group` of `user` with the conversation's policy.
    func group(_ user: MLSTestUser, _ chat: Chat) throws -> Group { try XCTUnwrap(user.groups[chat.convo]) }

    func isPrivateMessage(_ message: MLSMessage) -> Bool {
        if case .privateMessage = message.body { return true }
        return false
    }

    // MARK: A sealed conversation end to end

    func test_sealedConversation_endToEnd_bareAndWrappedKeyPackages_membersMatchTheTrees() throws {
        let chat = try chat(2)
        let flow = chat.flow
        let (alice, bob) = (chat.users[0], chat.users[1])
        let carol = flow.user(), dave = flow.user()
        // Dave publishes his KeyPackage bare, as OpenMLS clients do; Carol's is wrapped.
        let daveBundle = try dave.makeKeyPackage()
        let published = try call("publishKeyPackage", as: dave, [
            "keyPackage": ["$bytes": Base64Test.encode(daveBundle.keyPackage.encoded())], "cipherSuite": flow.suiteName,
        ])
        XCTAssertEqual(published.status, 200, "\(published.json)")
        try flow.publishKeyPackage(carol)

        // Alice adds both in one sealed commit through addMembers.
        let packages = try flow.keyPackages(as: alice, for: [carol, dave])
        let add = try group(alice, chat).add(keyPackages: packages)
        XCTAssertTrue(isPrivateMessage(add.commit))
        let added = try send(chat, as: alice, add.commit, groupInfo: add.groupInfo, welcome: add.welcome, method: "addMembers",
                             extra: ["didList": [carol.did, dave.did]])
        XCTAssertEqual(added.status, 200, "\(added.json)")
        XCTAssertEqual(Set(added.json["addedMembers"] as? [String] ?? []), [carol.did, dave.did])
        alice.groups[chat.convo] = add.group
        try flow.join(carol, chat.convo)
        try flow.join(dave, chat.convo)
        for user in [carol, dave] {
            let stats = try service.call("blue.catbird.mls.getKeyPackageStats", as: user.identity).json
            XCTAssertEqual(stats["consumed"] as? Int, 1, "the sealed add consumed \(user.did)'s package")
        }
        _ = try flow.sync(bob, chat.convo)

        // Chat, then a sealed self-update by Bob.
        XCTAssertEqual(try flow.send(carol, chat.convo, "hello from carol").status, 200)
        for user in [alice, bob, dave] { XCTAssertEqual(try flow.sync(user, chat.convo), ["hello from carol"]) }
        let update = try group(bob, chat).update()
        XCTAssertEqual(try flow.commitGroupChange(bob, chat.convo, update).status, 200)
        for user in [alice, carol, dave] { _ = try flow.sync(user, chat.convo) }

        // Alice (admin) removes Carol through removeMember.
        let carolLeaf = try group(carol, chat).ownLeaf
        let removal = try group(alice, chat).remove(leaves: [carolLeaf])
        let removed = try send(chat, as: alice, removal.commit, groupInfo: removal.groupInfo, method: "removeMember",
                               extra: ["targetDid": carol.did])
        XCTAssertEqual(removed.status, 200, "\(removed.json)")
        alice.groups[chat.convo] = removal.group
        for user in [bob, dave] { _ = try flow.sync(user, chat.convo) }

        // Dave lost his state: he rejoins by external commit (a PublicMessage, RFC 9420 §12.4.3.2).
        let served = try service.call("blue.catbird.mls.getGroupInfo", as: dave.identity, query: [("convoId", chat.convo)])
        guard case .groupInfo(let info) = try MLSMessage(decoding: try XCTUnwrap(Base64Test.decode(served.json["groupInfo"]))).body else {
            return XCTFail("no GroupInfo")
        }
        let rejoined = try Group.joinByExternalCommit(groupInfo: info, credential: dave.credential, signingKey: dave.signingKey,
                                                      removing: try group(dave, chat).ownLeaf, configuration: flow.configuration)
        let external = try call("processExternalCommit", as: dave, [
            "convoId": chat.convo, "externalCommit": MLSTestUser.bytes(rejoined.commit),
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(try rejoined.group.makeGroupInfo()))),
        ])
        XCTAssertEqual(external.status, 200, "\(external.json)")
        dave.groups[chat.convo] = rejoined.group
        dave.readSeq[chat.convo] = try flow.lastSeq(dave, chat.convo)
        for user in [alice, bob] { _ = try flow.sync(user, chat.convo) }
        XCTAssertEqual(try flow.send(dave, chat.convo, "dave is back").status, 200)
        XCTAssertEqual(try flow.sync(bob, chat.convo), ["dave is back"])

        // Every member, the service's public state and its member rows agree.
        let members = [alice, bob, dave]
        try assertAgree(chat, members)
        // The commits the service stored are the sealed ones as sent, the external one a PublicMessage.
        let commits = try service.call("blue.catbird.mls.getCommits", as: alice.identity,
                                       query: [("convoId", chat.convo), ("fromEpoch", "0")]).json["commits"] as? [[String: Any]] ?? []
        let sealedEpochs = try commits.filter { entry in
            isPrivateMessage(try MLSMessage(decoding: try XCTUnwrap(Base64Test.decode(entry["commitData"]))))
        }.compactMap { $0["epoch"] as? Int }
        XCTAssertEqual(sealedEpochs, [0, 1, 2, 3], "the initial commit, the add, the update and the removal")
        XCTAssertEqual(commits.count, 5)
    }

    /// The members agree on the epoch's secrets; the service's GroupInfo (its public state of the
    /// epoch) has their tree and context; its member rows are the tree's leaves.
    func assertAgree(_ chat: Chat, _ users: [MLSTestUser], file: StaticString = #filePath, line: UInt = #line) throws {
        let groups = try users.map { try group($0, chat) }
        let first = try XCTUnwrap(groups.first)
        for group in groups {
            XCTAssertEqual(group.epoch, first.epoch, file: file, line: line)
            XCTAssertEqual(group.epochAuthenticator, first.epochAuthenticator, file: file, line: line)
            XCTAssertEqual(group.tree, first.tree, file: file, line: line)
        }
        let served = try service.call("blue.catbird.mls.getGroupInfo", as: users[0].identity, query: [("convoId", chat.convo)])
        XCTAssertEqual(served.json["epoch"] as? Int, Int(first.epoch), file: file, line: line)
        guard case .groupInfo(let info) = try MLSMessage(decoding: try XCTUnwrap(Base64Test.decode(served.json["groupInfo"]))).body else {
            return XCTFail("no GroupInfo", file: file, line: line)
        }
        let observer = try PublicGroup(groupInfo: info)
        XCTAssertEqual(observer.groupContext, first.groupContext, file: file, line: line)
        XCTAssertEqual(observer.tree, first.tree, file: file, line: line)
        let view = try service.call("blue.catbird.mls.getConvo", as: users[0].identity, query: [("convoId", chat.convo)]).json
        XCTAssertEqual(view["handshake"] as? String, "sealed", file: file, line: line)
        XCTAssertEqual(view["epoch"] as? Int, Int(first.epoch), file: file, line: line)
        let rows = (view["members"] as? [[String: Any]] ?? []).compactMap { member -> String? in
            guard let did = member["did"] as? String, let leaf = member["leafIndex"] as? Int else { return nil }
            return "\(leaf) \(did)"
        }
        let fromTree = first.members.map { member -> String in
            guard case .basic(let identity) = member.credential else { return "?" }
            return "\(member.leafIndex) \(String(decoding: identity, as: UTF8.self))"
        }
        XCTAssertEqual(rows.sorted(), fromTree.sorted(), file: file, line: line)
    }

    // MARK: Refusals, each with the database unchanged

    func test_sealedCommitWithoutGroupInfo_is400GroupInfoRequired() throws {
        let chat = try chat(2)
        let alice = chat.users[0]
        let update = try group(alice, chat).update()
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        let reply = try send(chat, as: alice, update.commit, groupInfo: nil)
        expect(reply, 400, "GroupInfoRequired", saying: "cannot check that the encrypted commit matches")
        XCTAssertEqual(try rows.convo(chat.convo), before)
        XCTAssertEqual(try send(chat, as: alice, update.commit, groupInfo: update.groupInfo).status, 200)
    }

    func test_groupInfoSignedByANonMember_isRefused() throws {
        let chat = try chat(3)
        let alice = chat.users[0]
        let update = try group(alice, chat).update()
        let forgery = GroupInfoForgery(update.groupInfo, suite: chat.flow.suite)
        let outsider = try chat.flow.suite.signatureScheme.generatePrivateKey()
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        // An outsider's key in Alice's name; a leaf the tree does not have.
        expect(try send(chat, as: alice, update.commit, groupInfo: try forgery.signed(by: outsider)), 400, "InvalidGroupInfo",
               saying: "signature")
        expect(try send(chat, as: alice, update.commit, groupInfo: try forgery.signed(by: outsider, as: 99)), 400, "InvalidGroupInfo",
               saying: "leaf 99")
        XCTAssertEqual(try rows.convo(chat.convo), before)
    }

    func test_fabricatedLeaf_withoutAPublishedKeyPackage_isRefused() throws {
        let chat = try chat(2)
        let (alice, bob) = (chat.users[0], chat.users[1])
        let carol = chat.flow.user()
        let carolPublished = try chat.flow.publishKeyPackage(carol)
        // Bob makes a KeyPackage in Carol's name with keys of his own; it was never published.
        let now = UInt64(Date().timeIntervalSince1970)
        let forged = try KeyPackageBundle.generate(suite: chat.flow.suite, credential: carol.credential,
                                                   signingKey: try chat.flow.suite.signatureScheme.generatePrivateKey(),
                                                   lifetime: Lifetime(notBefore: now - 60, notAfter: now + 86_400))
        let fabricated = try group(bob, chat).add(keyPackages: [forged.keyPackage])
        let honest = try group(bob, chat).add(keyPackages: [carolPublished.keyPackage])
        let rows = try DatabaseRows(try service)
        let owners = [alice.did, bob.did, carol.did]
        let before = try rows.snapshot(convo: chat.convo, owners: owners)

        // Its own Welcome names a KeyPackage the service never saw.
        expect(try send(chat, as: bob, fabricated.commit, groupInfo: fabricated.groupInfo, welcome: fabricated.welcome),
               404, "KeyPackageNotFound")
        // With the Welcome of Carol's real package, the fabricated leaf is still not that package's leaf.
        expect(try send(chat, as: bob, fabricated.commit, groupInfo: fabricated.groupInfo, welcome: honest.welcome),
               400, "InvalidCommit", saying: "not the leaf node of a KeyPackage its DID published")
        // Without a Welcome the added leaf names nothing at all.
        expect(try send(chat, as: bob, fabricated.commit, groupInfo: fabricated.groupInfo), 400, "InvalidWelcome")
        XCTAssertEqual(try rows.snapshot(convo: chat.convo, owners: owners), before)

        // Carol's real package, its Welcome: accepted, and consumed.
        XCTAssertEqual(try send(chat, as: bob, honest.commit, groupInfo: honest.groupInfo, welcome: honest.welcome).status, 200)
        XCTAssertTrue(try rows.keyPackages(of: [carol.did]).joined().contains("\"consumed_in_convo\":\"\(chat.convo)\""))
    }

    /// Alice's sealed self-update in a conversation of `count`, its GroupInfo changed by `forge` and
    /// signed again by her: refused with `name` saying `words`, every row unchanged; the GroupInfo as
    /// she made it is then accepted, so the forgery alone was refused.
    func assertForgedUpdateRefused(_ count: Int, _ status: Int, _ name: String, saying words: String,
                                   file: StaticString = #filePath, line: UInt = #line,
                                   _ forge: (inout GroupInfoForgery, CommitOutput) throws -> Void) throws {
        let chat = try chat(count)
        let alice = chat.users[0]
        let update = try group(alice, chat).update()
        var forgery = GroupInfoForgery(update.groupInfo, suite: chat.flow.suite)
        try forge(&forgery, update)
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        expect(try send(chat, as: alice, update.commit, groupInfo: try forgery.signed(by: alice.signingKey)), status, name,
               saying: words, file: file, line: line)
        XCTAssertEqual(try rows.convo(chat.convo), before, file: file, line: line)
        XCTAssertEqual(try send(chat, as: alice, update.commit, groupInfo: update.groupInfo).status, 200, file: file, line: line)
    }

    func test_anotherMembersLeafChanged_isRefused() throws {
        try assertForgedUpdateRefused(3, 400, "InvalidCommit", saying: "leaf 1, another member's, changed") { forgery, update in
            let suite = forgery.suite
            let mallory = try suite.signatureScheme.generatePrivateKey()
            try forgery.editLeaf(2) { leaf in   // Bob's leaf (leaf 1, node 2), taken over by Mallory's key
                leaf.signatureKey = mallory.publicKey.bytes
                leaf.leafNodeSource = .update
                try leaf.resign(with: mallory, suite: suite, groupID: update.group.groupID, leaf: 1)
            }
        }
    }

    func test_brokenParentHash_isRefused() throws {
        // The root (node 3) is on Alice's filtered direct path.
        try assertForgedUpdateRefused(3, 400, "InvalidCommit", saying: "parent_hash") { forgery, _ in
            let nh = forgery.suite.nh
            try forgery.editParent(3) { $0.parentHash = Array(repeating: 7, count: nh) }
        }
    }

    func test_epochSkip_isRefused() throws {
        try assertForgedUpdateRefused(2, 400, "InvalidGroupInfo", saying: "not the next one") { forgery, _ in
            forgery.groupInfo.groupContext.epoch += 1
        }
    }

    func test_treeHashDifferentFromTheGroupContexts_isRefused() throws {
        try assertForgedUpdateRefused(2, 400, "InvalidGroupInfo", saying: "tree_hash") { forgery, _ in
            forgery.groupInfo.groupContext.treeHash[0] ^= 1
        }
    }

    func test_treelessGroupInfo_isRefused() throws {
        // Without its tree a GroupInfo shows nothing to check, and could not serve a joiner.
        try assertForgedUpdateRefused(2, 400, "InvalidGroupInfo", saying: "ratchet_tree") { forgery, _ in
            forgery.groupInfo.extensions.removeAll { $0.extensionType == .ratchetTree }
        }
    }

    func test_aRemovalTheCallerMayNotMake_isRefused() throws {
        let chat = try chat(3)
        let (bob, carol) = (chat.users[1], chat.users[2])
        // Bob is no admin, and Carol did not ask to leave.
        let removal = try group(bob, chat).remove(leaves: [try group(carol, chat).ownLeaf])
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        expect(try send(chat, as: bob, removal.commit, groupInfo: removal.groupInfo), 403, "NotAdmin")
        expect(try send(chat, as: bob, removal.commit, groupInfo: removal.groupInfo, method: "removeMember",
                        extra: ["targetDid": carol.did]), 403, "NotAdmin")
        XCTAssertEqual(try rows.convo(chat.convo), before)
    }

    func test_privateMessageCommitInAPublicConversation_isRefused() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user()
        let bobPackage = try flow.publishKeyPackage(bob)
        // Members that frame their handshakes as PrivateMessages, in a conversation created public
        // (no handshake field), its members named by keyPackageHashes alone.
        let sealed = GroupConfiguration(wireFormatPolicy: .pureCiphertext)
        let created = try Group.create(suite: flow.suite, credential: alice.credential, signingKey: alice.signingKey,
                                       configuration: sealed).add(keyPackages: [bobPackage.keyPackage], includePath: false)
        let convo = flow.hex(created.group.groupID)
        let reply = try call("createConvo", as: alice, [
            "groupId": convo, "cipherSuite": flow.suiteName, "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(created.groupInfo))),
            "welcomeMessage": MLSTestUser.bytes(created.welcome!), "keyPackageHashes": [["did": bob.did, "hash": flow.hex(bobPackage.ref)]],
        ])
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        XCTAssertEqual(reply.json["handshake"] as? String, "public")
        var bobs = try Group.join(welcome: try XCTUnwrap({ if case .welcome(let w) = created.welcome!.body { w } else { nil } }()),
                                  keyPackage: bobPackage, configuration: sealed)
        let update = try created.group.update()
        XCTAssertTrue(isPrivateMessage(update.commit))
        let leave = try bobs.proposeSelfRemove()
        XCTAssertTrue(isPrivateMessage(leave))

        let rows = try DatabaseRows(try service)
        let before = try rows.convo(convo)
        let chat = Chat(flow: flow, users: [alice, bob], convo: convo)
        expect(try send(chat, as: alice, update.commit, groupInfo: update.groupInfo), 400, "InvalidCommit",
               saying: "created with handshake \"public\"")
        expect(try call("leaveConvo", as: bob, ["convoId": convo, "proposal": MLSTestUser.bytes(leave)]), 400, "InvalidProposal",
               saying: "handshake \"public\"")
        XCTAssertEqual(try rows.convo(convo), before)
    }

    // MARK: The service's rules on sealed commits

    func test_oneSealedCommitPerEpoch_andOnlyTheCallersOwn() throws {
        let chat = try chat(3)
        let (alice, bob, carol) = (chat.users[0], chat.users[1], chat.users[2])
        let bobUpdate = try group(bob, chat).update()
        let carolUpdate = try group(carol, chat).update()
        // Carol cannot pass off Bob's commit as her own: the GroupInfo names its committer.
        expect(try send(chat, as: carol, bobUpdate.commit, groupInfo: bobUpdate.groupInfo), 403, "NotCommitter")
        XCTAssertEqual(try chat.flow.commitGroupChange(bob, chat.convo, bobUpdate).status, 200)
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        expect(try send(chat, as: carol, carolUpdate.commit, groupInfo: carolUpdate.groupInfo), 409, "CommitConflict")
        XCTAssertEqual(try rows.convo(chat.convo), before)
        for user in [alice, carol] { _ = try chat.flow.sync(user, chat.convo) }
        try assertAgree(chat, [alice, bob, carol])
    }

    func test_sealedLeaveRequest_mustBeCoveredByBlankingItsLeaf() throws {
        let chat = try chat(3)
        let (alice, bob, carol) = (chat.users[0], chat.users[1], chat.users[2])
        var bobs = try group(bob, chat)
        let proposal = try bobs.proposeSelfRemove()
        XCTAssertTrue(isPrivateMessage(proposal))
        let leave = try call("leaveConvo", as: bob, ["convoId": chat.convo, "proposal": MLSTestUser.bytes(proposal)])
        XCTAssertEqual(leave.status, 200, "\(leave.json)")
        XCTAssertEqual(leave.json["pendingRemoval"] as? Bool, true)
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)
        XCTAssertEqual(before.filter { $0.hasPrefix("pending_proposals") }.count, 1)

        // A sealed commit that leaves Bob's leaf in place is refused, Bob's own included.
        let aliceUpdate = try group(alice, chat).update()
        expect(try send(chat, as: alice, aliceUpdate.commit, groupInfo: aliceUpdate.groupInfo), 409, "PendingProposals")
        let bobUpdate = try bobs.update()
        expect(try send(chat, as: bob, bobUpdate.commit, groupInfo: bobUpdate.groupInfo), 409, "PendingProposals",
               saying: "the committer asked to leave")
        XCTAssertEqual(try rows.convo(chat.convo), before)

        // Carol, no admin, reads the sealed proposal and may commit Bob's removal: he asked.
        _ = try chat.flow.sync(carol, chat.convo)
        let carols = try group(carol, chat)
        XCTAssertEqual(carols.state.proposals.count, 1, "Carol processed Bob's sealed self-Remove")
        let removal = try carols.commit()
        XCTAssertTrue(isPrivateMessage(removal.commit))
        let reply = try chat.flow.commitGroupChange(carol, chat.convo, removal)
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        XCTAssertTrue(try rows.convo(chat.convo).filter { $0.hasPrefix("pending_proposals") }.isEmpty)
        _ = try chat.flow.sync(alice, chat.convo)
        try assertAgree(chat, [alice, carol])
        let view = try service.call("blue.catbird.mls.getConvo", as: alice.identity, query: [("convoId", chat.convo)]).json
        XCTAssertFalse((view["members"] as? [[String: Any]] ?? []).contains { $0["did"] as? String == bob.did })
    }

    func test_sealedCreateConvo_namesItsMembersByKeyPackageHashes_andTakesBothForms() throws {
        var flow = ChatFlow(service: try service)
        flow.sealed = true
        let alice = flow.user(), bob = flow.user()
        let bobPackage = try flow.publishKeyPackage(bob)
        // Alice sends PrivateMessages and accepts both; Bob (below) sends PublicMessages.
        let mixed = GroupConfiguration(wireFormatPolicy: .mixedCiphertext)
        let group = try Group.create(suite: flow.suite, credential: alice.credential, signingKey: alice.signingKey, configuration: mixed)
        let output = try group.add(keyPackages: [bobPackage.keyPackage], includePath: false)
        XCTAssertTrue(isPrivateMessage(output.commit))
        let convo = flow.hex(group.groupID)
        var body: [String: Any] = [
            "groupId": convo, "cipherSuite": flow.suiteName, "handshake": "sealed",
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(output.groupInfo))),
            "commit": MLSTestUser.bytes(output.commit), "welcomeMessage": MLSTestUser.bytes(output.welcome!),
        ]
        let rows = try DatabaseRows(try service)
        let before = try rows.snapshot(convo: convo, owners: [alice.did, bob.did])
        // Its Adds are encrypted: without keyPackageHashes nothing names Bob's package.
        expect(try call("createConvo", as: alice, body), 400, "InvalidGroupInfo", saying: "0 KeyPackages are named")
        // In a public conversation the same commit must be a PublicMessage.
        var publicBody = body
        publicBody["handshake"] = "public"
        publicBody["keyPackageHashes"] = [["did": bob.did, "hash": flow.hex(bobPackage.ref)]]
        expect(try call("createConvo", as: alice, publicBody), 400, "InvalidCommit", saying: "PublicMessage")
        expect(try call("createConvo", as: alice, body.merging(["handshake": "secret"]) { _, new in new }), 400, "InvalidRequest")
        XCTAssertEqual(try rows.snapshot(convo: convo, owners: [alice.did, bob.did]), before)

        body["keyPackageHashes"] = [["did": bob.did, "hash": flow.hex(bobPackage.ref)]]
        let created = try call("createConvo", as: alice, body)
        XCTAssertEqual(created.status, 200, "\(created.json)")
        XCTAssertEqual(created.json["handshake"] as? String, "sealed")
        alice.groups[convo] = output.group
        alice.readSeq[convo] = 1
        var plainFlow = flow
        plainFlow.sealed = false
        try plainFlow.join(bob, convo)
        // Both forms of commit are taken in a sealed conversation: Bob's PublicMessage one is validated in full.
        let plain = try XCTUnwrap(bob.groups[convo]).update()
        XCTAssertFalse(isPrivateMessage(plain.commit))
        XCTAssertEqual(try flow.commitGroupChange(bob, convo, plain).status, 200)
        _ = try flow.sync(alice, convo)
        XCTAssertEqual(alice.groups[convo]?.epochAuthenticator, bob.groups[convo]?.epochAuthenticator)
        let sealedUpdate = try XCTUnwrap(alice.groups[convo]).update()
        XCTAssertTrue(isPrivateMessage(sealedUpdate.commit))
        XCTAssertEqual(try flow.commitGroupChange(alice, convo, sealedUpdate).status, 200)
        _ = try flow.sync(bob, convo)
        XCTAssertEqual(alice.groups[convo]?.epochAuthenticator, bob.groups[convo]?.epochAuthenticator)
    }
}
