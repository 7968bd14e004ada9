import DeliveryService
import Foundation
import MLS
import MLSTestSupport
import Store
import XCTest

/// Issue 14, items 2–6: each attack sent to the real server. Each is answered with its 4xx, changes
/// no row, and (for the large ones) grows the server's peak resident memory by less than
/// `peakBoundKB`; the server runs in this process, so the peak is this process's, reset before the
/// request (`ProcessMemory.measure`). What each cost is printed for the record; no test asserts on time.
final class AbuseMLSTests: ChatTestCase {
    /// Generous: a request of up to 16 MiB is read, parsed as JSON and base64-decoded, so a few
    /// copies of it are normal. Before the limits these attacks asked for gigabytes.
    static let peakBoundKB = 256_000

    /// Sends `body`, measured; asserts the reply and the memory bound, and prints the cost.
    func attack(_ what: String, _ method: String, as user: MLSTestUser, _ body: [String: Any],
                expect status: Int, _ name: String, message: String? = nil,
                file: StaticString = #filePath, line: UInt = #line) throws {
        let (reply, cost) = try ProcessMemory.measure { try call(method, as: user, body) }
        print("issue 14 attack: \(what): \(reply.status) \(reply.error ?? "-"); \(cost)")
        XCTAssertEqual(reply.status, status, "\(reply.json)", file: file, line: line)
        XCTAssertEqual(reply.error, name, file: file, line: line)
        if let message {
            XCTAssertTrue((reply.json["message"] as? String ?? "").contains(message), "\(reply.json)", file: file, line: line)
        }
        XCTAssertLessThan(cost.peakGrowthKB, Self.peakBoundKB, "\(what): \(cost)", file: file, line: line)
    }

    static func groupInfo(in body: [String: Any]) throws -> GroupInfo {
        guard case .groupInfo(let groupInfo) = try MLSMessage(decoding: try XCTUnwrap(Base64Test.decode(body["groupInfo"]))).body else {
            throw XCTestError(.failureWhileWaiting)
        }
        return groupInfo
    }

    // MARK: Item 2: one Welcome, stored once

    func test_welcomeNamingOneKeyPackage20000Times_isRefused_andStoresNothing() throws {
        let chat = try chat(2)
        let alice = chat.users[0]
        let carol = chat.flow.user()
        let package = try chat.flow.publishKeyPackage(carol)
        let output = try XCTUnwrap(alice.groups[chat.convo]).add(keyPackages: [package.keyPackage])
        let welcome = try MLSAttacks.repeating(try XCTUnwrap(output.welcome), count: 20_000)
        XCTAssertGreaterThan(welcome.encoded().count, 2_000_000)
        let rows = try DatabaseRows(try service)
        let before = try rows.snapshot(convo: chat.convo, owners: [carol.did])

        try attack("addMembers, Welcome with 20,000 copies of one new_member", "addMembers", as: alice, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(output.commit), "welcomeMessage": MLSTestUser.bytes(welcome),
        ], expect: 400, "InvalidWelcome")
        XCTAssertEqual(try rows.snapshot(convo: chat.convo, owners: [carol.did]), before)

        // Two copies with room for two (one member missing): the repeat itself is named.
        let dave = chat.flow.user()
        let packages = [package.keyPackage, try chat.flow.publishKeyPackage(dave).keyPackage]
        let two = try XCTUnwrap(alice.groups[chat.convo]).add(keyPackages: packages)
        let doubled = try MLSAttacks.repeating(try XCTUnwrap(two.welcome), count: 2)
        let repeated = try call("addMembers", as: alice, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(two.commit), "welcomeMessage": MLSTestUser.bytes(doubled),
        ])
        XCTAssertEqual(repeated.status, 400, "\(repeated.json)")
        XCTAssertEqual(repeated.error, "InvalidWelcome")
        XCTAssertEqual(repeated.json["message"] as? String, "the Welcome addresses a KeyPackage twice")
        XCTAssertEqual(try rows.snapshot(convo: chat.convo, owners: [carol.did, dave.did]).sorted(),
                       (before + (try rows.keyPackages(of: [dave.did]))).sorted())
    }

    /// The issue's form: createConvo whose second leaf is a KeyPackage of the caller's own (a second
    /// device), with a Welcome naming it 20,000 times.
    func test_createConvoWelcomeNamingTheCallersOwnKeyPackage20000Times_isRefused_andStoresNothing() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user()
        let device = try flow.publishKeyPackage(MLSTestUser(alice.identity))
        let group = try Group.create(suite: MLSAttacks.suite, credential: alice.credential, signingKey: alice.signingKey)
        let output = try group.add(keyPackages: [device.keyPackage], includePath: false)
        let welcome = try MLSAttacks.repeating(try XCTUnwrap(output.welcome), count: 20_000)
        let convo = MLSAttacks.hex(group.groupID)
        let rows = try DatabaseRows(try service)
        let before = try rows.snapshot(convo: convo, owners: [alice.did])
        let body: [String: Any] = [
            "groupId": convo, "cipherSuite": MLSAttacks.suiteName,
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(output.groupInfo))),
            "commit": MLSTestUser.bytes(output.commit), "welcomeMessage": MLSTestUser.bytes(welcome),
        ]
        try attack("createConvo, Welcome with 20,000 copies of the caller's own KeyPackage", "createConvo", as: alice, body,
                   expect: 400, "InvalidWelcome")
        XCTAssertEqual(try rows.snapshot(convo: convo, owners: [alice.did]), before)
        var honest = body
        honest["welcomeMessage"] = MLSTestUser.bytes(try XCTUnwrap(output.welcome))
        let created = try call("createConvo", as: alice, honest)
        XCTAssertEqual(created.status, 200, "\(created.json)")
    }

    /// The honest Welcome to two members is stored once, with a row per recipient pointing to it;
    /// each fetches it and confirms it on its own.
    func test_welcomeToTwoMembers_isStoredOnce_andServedToEach() throws {
        let chat = try chat(1)
        let alice = chat.users[0]
        let carol = chat.flow.user(), dave = chat.flow.user()
        let packages = [try chat.flow.publishKeyPackage(carol).keyPackage, try chat.flow.publishKeyPackage(dave).keyPackage]
        let output = try XCTUnwrap(alice.groups[chat.convo]).add(keyPackages: packages)
        let reply = try call("addMembers", as: alice, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(output.commit),
            "welcomeMessage": MLSTestUser.bytes(try XCTUnwrap(output.welcome)),
        ])
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        alice.groups[chat.convo] = output.group

        let rows = try DatabaseRows(try service)
        let stored = try rows.query("SELECT id, welcome FROM welcome_messages WHERE convo_id = $1", [chat.convo])
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(try stored[0].bytes("welcome"), try XCTUnwrap(output.welcome).encoded())
        let recipients = try rows.query("SELECT recipient_did, welcome_id FROM welcomes WHERE convo_id = $1 ORDER BY recipient_did",
                                        [chat.convo])
        XCTAssertEqual(try recipients.map { try $0.string("recipient_did") }, [carol.did, dave.did].sorted())
        XCTAssertEqual(Set(try recipients.map { try $0.int64("welcome_id") }), [try stored[0].int64("id")])
        try chat.flow.join(carol, chat.convo)
        try chat.flow.join(dave, chat.convo)
        XCTAssertEqual(try rows.query("SELECT 1 FROM welcomes WHERE convo_id = $1 AND confirmed_at IS NOT NULL", [chat.convo]).count, 2)
        XCTAssertEqual(try chat.flow.send(carol, chat.convo, "hi").status, 200)
        XCTAssertEqual(try chat.flow.sync(dave, chat.convo), ["hi"])
    }

    // MARK: Items 3 and 4: trees

    /// createConvo from a new user with `tree`; refused by the tree bound, in bounded memory, storing nothing.
    func treeAttack(_ what: String, tree: (LeafNode) throws -> RatchetTree, signer: UInt32, validHash: Bool,
                    file: StaticString = #filePath, line: UInt = #line) throws {
        let mallory = ChatFlow(service: try service).user()
        let body = try MLSAttacks.createConvo(mallory, tree: tree, signer: signer, validHash: validHash)
        XCTAssertGreaterThan(try JSONSerialization.data(withJSONObject: body).count, 8_000_000, file: file, line: line)
        try attack(what, "createConvo", as: mallory, body, expect: 400, "InvalidGroupInfo", message: "wider than this service takes",
                   file: file, line: line)
        XCTAssertEqual(try DatabaseRows(try service).convo(try XCTUnwrap(body["groupId"] as? String)), [], file: file, line: line)
    }

    func test_createConvoWithOneAndAHalfMillionUnmergedLeaves_isRefusedInBoundedMemory() throws {
        let other = try ChatFlow(service: try service).user().makeKeyPackage().keyPackage.leafNode
        try treeAttack("createConvo, 1.5M unmerged_leaves in one parent (8 MiB)",
                       tree: try MLSAttacks.unmergedLeavesTree(count: 1_500_000, other: other), signer: 0, validHash: true)
    }

    /// The hash is not the tree's: a server that built the tree before checking it paid for all of it.
    func test_createConvoWithItsOnlyLeafAtIndex3Million_isRefusedInBoundedMemory() throws {
        try treeAttack("createConvo, one leaf at index 3,000,000 (8 MiB of blanks)",
                       tree: MLSAttacks.farLeafTree(at: 3_000_000), signer: 3_000_000, validHash: false)
    }

    /// A valid tree: its last leaf below 2 × maxMembers (1000 by default) is taken, at 2000 refused
    /// by its width before it is built, whatever its member count.
    func test_validOneMemberTree_isTakenUpToTwiceTheMemberCap_andRefusedBeyond() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user()
        let beyond = try MLSAttacks.createConvo(alice, tree: MLSAttacks.farLeafTree(at: 2000), signer: 2000, validHash: true)
        let refused = try call("createConvo", as: alice, beyond)
        XCTAssertEqual(refused.status, 400, "\(refused.json)")
        XCTAssertEqual(refused.error, "InvalidGroupInfo")
        XCTAssertTrue((refused.json["message"] as? String ?? "").hasPrefix("the ratchet tree is wider than this service takes"))
        // The same tree given beside the GroupInfo is refused by its width.
        var separate = beyond
        let groupInfo = try Self.groupInfo(in: beyond)
        let ext = try XCTUnwrap(groupInfo.extensions.first(ofType: .ratchetTree))
        separate["ratchetTree"] = ["$bytes": Base64Test.encode(ext.extensionData)]
        let stripped = GroupInfo(groupContext: groupInfo.groupContext, extensions: [], confirmationTag: groupInfo.confirmationTag,
                                 signer: groupInfo.signer, signature: [])
        var resigned = stripped
        try resigned.sign(with: alice.signingKey, suite: MLSAttacks.suite)
        separate["groupInfo"] = MLSTestUser.bytes(MLSMessage(body: .groupInfo(resigned)))
        let refusedSeparately = try call("createConvo", as: alice, separate)
        XCTAssertEqual(refusedSeparately.status, 400, "\(refusedSeparately.json)")
        XCTAssertEqual(refusedSeparately.json["message"] as? String, refused.json["message"] as? String)

        let within = try MLSAttacks.createConvo(alice, tree: MLSAttacks.farLeafTree(at: 1999), signer: 1999, validHash: true)
        let taken = try call("createConvo", as: alice, within)
        XCTAssertEqual(taken.status, 200, "\(taken.json)")
        XCTAssertEqual((taken.json["members"] as? [[String: Any]])?.count, 1)
    }

    /// A state stored before the limits (a blank-tree group accepted then) is refused from its node
    /// count on every later call, with a 409 that names the limit, never rebuilt.
    func test_storedTreeWiderThanTheLimits_isRefusedWithoutBeingRebuilt() throws {
        let chat = try chat(2)
        let (alice, bob) = (chat.users[0], chat.users[1])
        let body = try MLSAttacks.createConvo(alice, tree: MLSAttacks.farLeafTree(at: 3000), signer: 3000, validHash: true)
        let wide = try PublicGroup(groupInfo: try Self.groupInfo(in: body))
        let rows = try DatabaseRows(try service)
        try rows.execute("UPDATE convos SET public_state = $2 WHERE convo_id = $1", [chat.convo, wide.serialize()])
        let before = try rows.convo(chat.convo)

        let commit = try call("commitGroupChange", as: alice, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(try XCTUnwrap(alice.groups[chat.convo]).update().commit),
        ])
        XCTAssertEqual(commit.status, 409, "\(commit.json)")
        XCTAssertEqual(commit.error, "TooManyMembers")
        var bobs = try XCTUnwrap(bob.groups[chat.convo])
        let leave = try call("leaveConvo", as: bob, ["convoId": chat.convo, "proposal": MLSTestUser.bytes(try bobs.proposeSelfRemove())])
        XCTAssertEqual(leave.status, 409, "\(leave.json)")
        XCTAssertEqual(leave.error, "TooManyMembers")
        XCTAssertEqual(try rows.convo(chat.convo), before)
    }

    // MARK: Item 5: pending proposals

    func test_leaveRequestFlood_keepsOneSmallProposal_andCommitsDoNotVerifyItAgain() throws {
        let chat = try chat(3)
        let (alice, bob) = (chat.users[0], chat.users[1])
        var bobs = try XCTUnwrap(bob.groups[chat.convo])
        let rows = try DatabaseRows(try service)
        let before = try rows.convo(chat.convo)

        // Larger than a self-Remove needs: refused by size before it is decoded or verified.
        let padded = try call("leaveConvo", as: bob, [
            "convoId": chat.convo, "proposal": MLSTestUser.bytes(try bobs.proposeSelfRemove(authenticatedData: [UInt8](repeating: 7, count: 5000))),
        ])
        XCTAssertEqual(padded.status, 400, "\(padded.json)")
        XCTAssertEqual(padded.error, "InvalidProposal")
        let oversized = try call("leaveConvo", as: bob, [
            "convoId": chat.convo, "proposal": MLSTestUser.bytes(try bobs.proposeSelfRemove(authenticatedData: [UInt8](repeating: 7, count: 20_000))),
        ])
        XCTAssertEqual(oversized.status, 413, "\(oversized.json)")
        XCTAssertEqual(try rows.convo(chat.convo), before)

        // Many distinct requests to leave in one epoch (20: within the per-DID burst of the membership
        // rate limit, 50): one is kept, and one message delivered.
        for index in 0..<20 {
            let proposal = try bobs.proposeSelfRemove(authenticatedData: Array("request \(index)".utf8))
            let reply = try call("leaveConvo", as: bob, ["convoId": chat.convo, "proposal": MLSTestUser.bytes(proposal)])
            XCTAssertEqual(reply.status, 200, "\(reply.json)")
        }
        let kept = try rows.query("SELECT proposal_ref, proposal FROM pending_proposals WHERE convo_id = $1", [chat.convo])
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(try rows.query("SELECT 1 FROM messages WHERE convo_id = $1 AND message_type = 'proposal'", [chat.convo]).count, 1)

        // The kept proposal was verified when stored. Spoil its stored signature: a commit that covers
        // it still goes through, since commit attempts no longer verify kept proposals again.
        guard case .publicMessage(var stored) = try MLSMessage(decoding: try kept[0].bytes("proposal")).body else {
            return XCTFail("not a PublicMessage")
        }
        stored.auth.signature[0] ^= 0x01
        try rows.execute("UPDATE pending_proposals SET proposal = $2 WHERE convo_id = $1",
                         [chat.convo, MLSMessage(body: .publicMessage(stored)).encoded()])
        _ = try chat.flow.sync(alice, chat.convo)
        let covering = try XCTUnwrap(alice.groups[chat.convo]).commit()
        let reply = try call("commitGroupChange", as: alice, ["convoId": chat.convo, "commit": MLSTestUser.bytes(covering.commit)])
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        XCTAssertEqual(try rows.query("SELECT 1 FROM pending_proposals WHERE convo_id = $1", [chat.convo]).count, 0)
    }

    // MARK: Item 6: cheap refusals first

    /// ~15 MiB of Adds of well-signed KeyPackages the service never saw, in a commit whose own
    /// signature is spoiled: the answer is the ref lookup's 404, so no signature (the commit's
    /// first, then two per package) was checked. 1001 Adds are refused by their count alone.
    func test_commitOfUnknownKeyPackages_isRefusedByTheRefLookup_beforeAnySignature() throws {
        let chat = try chat(2)
        let alice = chat.users[0]
        let stranger = chat.flow.user()
        let unknown = try MLSAttacks.unpublishedKeyPackages(credential: stranger.credential, count: 1000, padding: 11_000)
        let honest = try XCTUnwrap(alice.groups[chat.convo]).update().commit
        let junkWelcome = MLSAttacks.emptyWelcome
        let rows = try DatabaseRows(try service)
        let before = try rows.snapshot(convo: chat.convo, owners: [stranger.did])

        let forged = try MLSAttacks.forged(honest, proposals: unknown.map { .proposal(.add($0)) })
        XCTAssertGreaterThan(forged.encoded().count, 11_000_000)
        try attack("commit of 1000 unknown KeyPackages (11 MB), signature spoiled", "addMembers", as: alice, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(forged), "welcomeMessage": MLSTestUser.bytes(junkWelcome),
        ], expect: 404, "KeyPackageNotFound")

        // Signed as it should be, the same commit gets the same answer (the store's, as before the limits).
        let signed = try MLSAttacks.signed(try XCTUnwrap(alice.groups[chat.convo]), signingKey: alice.signingKey,
                                           proposals: unknown.map { .proposal(.add($0)) })
        try attack("commit of 1000 unknown KeyPackages (11 MB), signed", "addMembers", as: alice, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(signed), "welcomeMessage": MLSTestUser.bytes(junkWelcome),
        ], expect: 404, "KeyPackageNotFound")

        let tooMany = try MLSAttacks.forged(honest, proposals: Array(repeating: .proposal(.add(unknown[0])), count: 1001))
        try attack("commit of 1001 Adds (11 MB)", "addMembers", as: alice, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(tooMany), "welcomeMessage": MLSTestUser.bytes(junkWelcome),
        ], expect: 400, "TooManyMembers")
        XCTAssertEqual(try rows.snapshot(convo: chat.convo, owners: [stranger.did]), before)
    }

    /// A KeyPackage added twice in one commit is refused from the refs, before any signature.
    func test_commitAddingOneKeyPackageTwice_isRefusedBeforeAnySignature() throws {
        let chat = try chat(1)
        let alice = chat.users[0]
        let carol = chat.flow.user()
        let package = try chat.flow.publishKeyPackage(carol).keyPackage
        let honest = try XCTUnwrap(alice.groups[chat.convo]).update().commit
        let forged = try MLSAttacks.forged(honest, proposals: [.proposal(.add(package)), .proposal(.add(package))])
        let reply = try call("addMembers", as: alice, [
            "convoId": chat.convo, "commit": MLSTestUser.bytes(forged),
            "welcomeMessage": MLSTestUser.bytes(MLSAttacks.emptyWelcome),
        ])
        XCTAssertEqual(reply.status, 400, "\(reply.json)")
        XCTAssertEqual(reply.json["message"] as? String, "a KeyPackage is added twice")
    }
}

/// The member cap is checked from the commit's Adds and the stored member count, before any
/// signature: with a cap of 3, a spoiled commit that would make 4 is answered TooManyMembers.
final class MemberCapTests: XCTestCase {
    func test_commitPastTheMemberCap_isRefusedBeforeAnySignature() throws {
        var limits = ServiceLimits()
        limits.maxMembers = 3
        let harness = try ServiceHarness(limits: limits)
        defer { harness.shutdown() }
        let flow = ChatFlow(service: harness)
        let alice = flow.user(), bob = flow.user(), carol = flow.user(), dave = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        try flow.join(bob, convo)
        let packages = [try flow.publishKeyPackage(carol).keyPackage, try flow.publishKeyPackage(dave).keyPackage]
        let output = try XCTUnwrap(alice.groups[convo]).add(keyPackages: packages)
        let forged = try MLSAttacks.forged(output.commit, proposals: packages.map { .proposal(.add($0)) })
        let reply = try harness.call("blue.catbird.mls.addMembers", as: alice.identity, json: [
            "convoId": convo, "commit": MLSTestUser.bytes(forged), "welcomeMessage": MLSTestUser.bytes(try XCTUnwrap(output.welcome)),
        ])
        XCTAssertEqual(reply.status, 400, "\(reply.json)")
        XCTAssertEqual(reply.error, "TooManyMembers")

        // One more member fits.
        let one = try XCTUnwrap(alice.groups[convo]).add(keyPackages: [packages[0]])
        let added = try harness.call("blue.catbird.mls.addMembers", as: alice.identity, json: [
            "convoId": convo, "commit": MLSTestUser.bytes(one.commit), "welcomeMessage": MLSTestUser.bytes(try XCTUnwrap(one.welcome)),
        ])
        XCTAssertEqual(added.status, 200, "\(added.json)")
    }
}
