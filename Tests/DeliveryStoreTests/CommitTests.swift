import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

final class CommitTests: StoreTestCase {
    func test_concurrentCommitsFromOneEpoch_exactlyOneWins() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob"), leaf(2, "carol")], epoch: 4)
        // Alice removes carol while bob removes alice, both from epoch 4.
        let commits = [commit(convo, from: 4, sender: "alice", members: [leaf(0, "alice"), leaf(1, "bob")],
                              bytes: [0xa1]),
                       commit(convo, from: 4, sender: "bob", members: [leaf(1, "bob"), leaf(2, "carol")], bytes: [0xb0])]
        for _ in 0..<5 {
            let outcomes = Locked<[Result<CommitOutcome, DeliveryStoreError>]>([])
            let store = self.store
            let epoch = try store.epoch(convoID: convo)
            let round = commits.map { application -> CommitApplication in
                var copy = application
                copy.commitEpoch = epoch
                return copy
            }
            runOnThreads(2) { index in
                let result = Result { () throws(DeliveryStoreError) in try store.applyCommit(round[index]) }
                outcomes.withLock { $0.append(result) }
            }
            let wins = outcomes.value.compactMap { try? $0.get() }
            let losses = outcomes.value.compactMap { result -> DeliveryStoreError? in
                if case .failure(let error) = result { return error }
                return nil
            }
            XCTAssertEqual(wins.count, 1)
            XCTAssertEqual(losses, [.commitConflict(current: epoch + 1)])
            XCTAssertEqual(wins.first?.newEpoch, epoch + 1)
            XCTAssertEqual(try store.epoch(convoID: convo), epoch + 1, "the epoch advanced once")
            XCTAssertEqual(try fixture.count("SELECT count(*) FROM commits WHERE convo_id = $1 AND epoch = $2",
                                             [convo, epoch]), 1)
            XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages WHERE convo_id = $1 AND epoch = $2",
                                             [convo, epoch]), 1)
            // The stored commit is the winner's, and the members follow the winner's tree.
            let winner = try XCTUnwrap(store.commits(convoID: convo, fromEpoch: epoch, toEpoch: epoch).first)
            let members = try store.members(convoID: convo).map(\.leafIndex)
            if winner.commit == [0xa1] {
                XCTAssertEqual(members, [0, 1])
            } else {
                XCTAssertEqual(winner.commit, [0xb0])
                XCTAssertEqual(members, [1, 2])
            }
            // Put all three back for the next round.
            _ = try store.applyCommit(commit(convo, from: epoch + 1, members: [leaf(0, "alice"), leaf(1, "bob"),
                                                                              leaf(2, "carol")], bytes: [0]))
        }
        let seqs = try store.messages(convoID: convo, MessageQuery(limit: 100)).messages.map(\.seq)
        XCTAssertEqual(seqs, Array(1...10))
    }

    func test_oldOrFutureEpochCommit_isEpochMismatch() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")], epoch: 7)
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 6, members: [leaf(0, "alice")])) },
                       .epochMismatch(current: 7), "no commit won epoch 6 here: the sender is simply behind")
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 8, members: [leaf(0, "alice")])) },
                       .epochMismatch(current: 7))
        _ = try store.applyCommit(commit(convo, from: 7, members: [leaf(0, "alice"), leaf(1, "bob")]))
        _ = try store.applyCommit(commit(convo, from: 8, members: [leaf(0, "alice"), leaf(1, "bob")]))
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 8, members: [leaf(0, "alice")])) },
                       .commitConflict(current: 9))
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 7, members: [leaf(0, "alice")])) },
                       .epochMismatch(current: 9), "two epochs behind is a mismatch")
        XCTAssertEqual(deliveryError { try store.applyCommit(commit("0abc", from: 0, members: [leaf(0, "alice")])) },
                       .convoNotFound)
        XCTAssertEqual(try store.members(convoID: convo).count, 2)
    }

    func test_missingKeyPackage_rollsBackEverything() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let bobPackage = keyPackage("bob")
        _ = try store.publishKeyPackage(bobPackage)
        let before = try store.loadConvo(convo)
        let eventsBefore = try store.events(convoID: convo).count
        let missing: [UInt8] = [1, 2, 3]
        var application = commit(convo, from: 0, members: [leaf(0, "alice"), leaf(1, "bob"), leaf(2, "carol")],
                                  keyPackages: [KeyPackageUse(ref: bobPackage.ref, ownerDID: did("bob")),
                                                KeyPackageUse(ref: missing, ownerDID: did("carol"))],
                                  welcomes: [WelcomeDelivery(recipientDID: did("bob"), welcome: [9])])
        XCTAssertEqual(deliveryError { try store.applyCommit(application) }, .keyPackageNotFound(ref: missing))

        XCTAssertEqual(try store.loadConvo(convo), before, "epoch, state, seq, group info unchanged")
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM commits"), 0)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), 0)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM welcomes"), 0)
        XCTAssertEqual(try store.members(convoID: convo, includeLeft: true).map(\.did), [did("alice")])
        XCTAssertNil(try store.keyPackage(ref: bobPackage.ref)?.consumedAt, "bob's package is not consumed")
        XCTAssertEqual(try store.events(convoID: convo).count, eventsBefore)

        // Owner mismatch is refused the same way; with the right packages the commit applies.
        application.consumedKeyPackages = [KeyPackageUse(ref: bobPackage.ref, ownerDID: did("carol"))]
        XCTAssertEqual(deliveryError { try store.applyCommit(application) }, .keyPackageOwnerMismatch(ref: bobPackage.ref))
        application.members = [leaf(0, "alice"), leaf(1, "bob")]
        application.consumedKeyPackages = [KeyPackageUse(ref: bobPackage.ref, ownerDID: did("bob"))]
        let outcome = try store.applyCommit(application)
        XCTAssertEqual(outcome.addedDIDs, [did("bob")])
        let consumed = try XCTUnwrap(store.keyPackage(ref: bobPackage.ref))
        XCTAssertNotNil(consumed.consumedAt)
        XCTAssertEqual(consumed.consumedInConvo, convo)
        // A consumed package cannot be added again.
        let again = commit(convo, from: 1, members: [leaf(0, "alice"), leaf(1, "bob"), leaf(2, "bob", device: "2")],
                           keyPackages: [KeyPackageUse(ref: bobPackage.ref, ownerDID: did("bob"))])
        XCTAssertEqual(deliveryError { try store.applyCommit(again) }, .keyPackageNotFound(ref: bobPackage.ref))
        XCTAssertEqual(try store.epoch(convoID: convo), 1)
    }

    func test_applyCommit_advancesStateAndStoresEverything() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")], epoch: 2)
        let carol = keyPackage("carol")
        _ = try store.publishKeyPackage(carol)
        XCTAssertTrue(try store.addPendingProposal(PendingProposal(convoID: convo, epoch: 2, ref: [0xee], senderLeaf: 1,
                                                                   senderDID: user("bob"), kind: "remove", proposal: [1])))
        let outcome = try store.applyCommit(commit(
            convo, from: 2, members: [leaf(0, "alice"), leaf(2, "carol")], departures: [1: .left],
            keyPackages: [KeyPackageUse(ref: carol.ref, ownerDID: did("carol"))],
            welcomes: [WelcomeDelivery(recipientDID: did("carol"), welcome: [0x57], keyPackageRef: carol.ref)],
            covered: [[0xee]], bytes: [0xc0, 0x11]))
        XCTAssertEqual(outcome.newEpoch, 3)
        // seq 1 is bob's proposal, delivered to members as a message; the commit is seq 2.
        XCTAssertEqual(outcome.seq, 2)
        XCTAssertEqual(outcome.changes, [MembershipChange(did: did("bob"), action: .left, epoch: 3),
                                         MembershipChange(did: did("carol"), action: .joined, epoch: 3)])
        XCTAssertEqual(outcome.addedDIDs, [did("carol")])
        XCTAssertEqual(outcome.removedDIDs, [did("bob")])
        XCTAssertEqual(outcome.joinedLeaves, [leaf(2, "carol")])
        XCTAssertEqual(outcome.departedLeaves, [1])

        let state = try store.loadConvo(convo)
        XCTAssertEqual(state.epoch, 3)
        XCTAssertEqual(state.publicState, Array("state-3".utf8))
        XCTAssertEqual(state.groupInfo, Array("gi-3".utf8))
        XCTAssertEqual(state.currentGroupInfo, Array("gi-3".utf8))
        XCTAssertEqual(state.lastSeq, 2)
        XCTAssertNil(state.lastMessageAt, "commits and proposals are not user messages")
        let stored = try XCTUnwrap(store.commits(convoID: convo, fromEpoch: 0).first)
        XCTAssertEqual(stored.epoch, 2)
        XCTAssertEqual(stored.commit, [0xc0, 0x11])
        XCTAssertEqual(stored.senderDID, did("alice"))
        XCTAssertEqual(stored.seq, 2)
        let rows = try store.messages(convoID: convo).messages
        XCTAssertEqual(rows.map(\.kind), [.proposal, .commit])
        XCTAssertEqual(rows.first?.ciphertext, [1])
        let message = try XCTUnwrap(rows.last)
        XCTAssertEqual(message.kind, .commit)
        XCTAssertEqual(message.msgID, "commit-2")
        XCTAssertEqual(message.epoch, 2)
        XCTAssertEqual(message.ciphertext, [0xc0, 0x11])
        XCTAssertEqual(try store.welcome(convoID: convo, recipient: user("carol")).welcome, [0x57])
        XCTAssertEqual(try store.pendingProposals(convoID: convo), [])

        let bob = try XCTUnwrap(store.members(convoID: convo, includeLeft: true).first { $0.did == did("bob") })
        XCTAssertEqual(bob.leftReason, .left)
        XCTAssertEqual(bob.leftEpoch, 3)
        XCTAssertNotNil(bob.leftAt)
        XCTAssertFalse(try store.isMember(convoID: convo, did: user("bob")))
        XCTAssertEqual(try store.memberRole(convoID: convo, did: user("carol")), .member)
        XCTAssertEqual(try store.memberRole(convoID: convo, did: user("alice")), .admin)

        // A commit without a GroupInfo keeps the old one, which is then not current.
        var next = commit(convo, from: 3, members: [leaf(0, "alice"), leaf(2, "carol")])
        next.newGroupInfo = nil
        _ = try store.applyCommit(next)
        let later = try store.loadConvo(convo)
        XCTAssertEqual(later.groupInfoEpoch, 3)
        XCTAssertNil(later.currentGroupInfo)
        XCTAssertEqual(try store.commits(convoID: convo, fromEpoch: 3).map(\.epoch), [3])
        XCTAssertEqual(try store.commits(convoID: convo, fromEpoch: 0, toEpoch: 2).map(\.epoch), [2])
        XCTAssertEqual(deliveryError { try store.commits(convoID: convo, fromEpoch: 3, toEpoch: 2) },
                       .invalidArgument("toEpoch before fromEpoch"))
    }

    func test_memberDiffing_addRemoveAndReAddAtAnotherLeaf() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        // Add carol and a second device of alice (admin, like her first).
        let added = try store.applyCommit(commit(convo, from: 0, members: [leaf(0, "alice"), leaf(1, "bob"),
                                                                         leaf(2, "carol"), leaf(3, "alice", device: "2")]))
        XCTAssertEqual(added.changes.map(\.did), [did("carol")])
        XCTAssertEqual(try store.members(convoID: convo).map(\.isAdmin), [true, false, false, true])
        // Remove bob.
        let removed = try store.applyCommit(commit(convo, from: 1, members: [leaf(0, "alice"), leaf(2, "carol"),
                                                                           leaf(3, "alice", device: "2")]))
        XCTAssertEqual(removed.changes, [MembershipChange(did: did("bob"), action: .removed, epoch: 2)])
        // Re-add bob at another leaf, and put dave in bob's old leaf.
        let readded = try store.applyCommit(commit(convo, from: 2, members: [
            leaf(0, "alice"), leaf(1, "dave"), leaf(2, "carol"), leaf(3, "alice", device: "2"), leaf(4, "bob")]))
        XCTAssertEqual(readded.addedDIDs, [did("bob"), did("dave")])
        let current = try store.members(convoID: convo)
        XCTAssertEqual(current.map(\.leafIndex), [0, 1, 2, 3, 4])
        XCTAssertEqual(current.map(\.did), [did("alice"), did("dave"), did("carol"), did("alice"), did("bob")])
        XCTAssertFalse(current[4].isAdmin)
        XCTAssertEqual(current[4].joinedEpoch, 3)

        let history = try store.members(convoID: convo, includeLeft: true)
        let leaf1 = history.filter { $0.leafIndex == 1 }
        XCTAssertEqual(leaf1.map(\.did), [did("bob"), did("dave")])
        XCTAssertEqual(leaf1.map(\.joinedEpoch), [0, 3])
        XCTAssertEqual(leaf1[0].leftEpoch, 2)
        XCTAssertEqual(leaf1[0].leftReason, .removed)
        XCTAssertNil(leaf1[1].leftAt)
        XCTAssertTrue(try store.isMember(convoID: convo, did: user("bob")))

        // A leaf replaced within one commit: carol out, erin in at leaf 2; alice's device 2 leaves.
        let swap = try store.applyCommit(commit(convo, from: 3, members: [
            leaf(0, "alice"), leaf(1, "dave"), leaf(2, "erin"), leaf(4, "bob")], departures: [2: .left]))
        XCTAssertEqual(swap.changes.map(\.action), [.left, .joined])
        XCTAssertEqual(swap.departedLeaves, [2, 3])
        XCTAssertEqual(try store.members(convoID: convo).map(\.did), [did("alice"), did("dave"), did("erin"), did("bob")])
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM members WHERE convo_id = $1", [convo]), 7, "history rows stay")
    }

    func test_credentialUpdate_keepsTheRowAndAdminFlag() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        var alice = leaf(0, "alice", device: "phone")
        alice.credential = [0x42]
        _ = try store.applyCommit(commit(convo, from: 0, members: [alice, leaf(1, "bob")]))
        let row = try XCTUnwrap(store.members(convoID: convo, includeLeft: true).first)
        XCTAssertEqual(row.credential, [0x42])
        XCTAssertEqual(row.credentialIdentity, did("alice") + "#phone")
        XCTAssertEqual(row.joinedEpoch, 0)
        XCTAssertTrue(row.isAdmin)
        XCTAssertEqual(try store.members(convoID: convo, includeLeft: true).count, 2)
    }

    func test_invalidApplications_writeNothing() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 0, members: [])) },
                       .invalidArgument("a group keeps at least one member"))
        let welcomeForStranger = commit(convo, from: 0, members: [leaf(0, "alice")],
                                        welcomes: [WelcomeDelivery(recipientDID: did("zed"), welcome: [1])])
        guard case .invalidArgument = deliveryError({ try store.applyCommit(welcomeForStranger) }) else {
            return XCTFail("a welcome for a non-member was accepted")
        }
        // A commit message id that an application message already took.
        _ = try store.appendMessage(message(convo, "commit-0"))
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 0, members: [leaf(0, "alice")])) },
                       .messageIDConflict)
        XCTAssertEqual(try store.epoch(convoID: convo), 0)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM commits"), 0)
    }

    func test_commitRowForTheCurrentEpoch_blocksTheCommit() throws {
        // A commit row the epoch check did not see (written around the store): the unique key holds.
        let convo = try makeConvo([leaf(0, "alice")], epoch: 2)
        try fixture.database.execute("""
            INSERT INTO commits (convo_id, epoch, seq, sender_did, commit_data) VALUES ($1, 2, 99, 'did:plc:x', '\\x00')
            """, [convo])
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 2, members: [leaf(0, "alice")])) },
                       .commitConflict(current: 2))
        XCTAssertEqual(try store.epoch(convoID: convo), 2)
        XCTAssertEqual(try store.loadConvo(convo).lastSeq, 0)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), 0)
    }

    func test_setAdmin() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        try store.setAdmin(convoID: convo, did: user("bob"), isAdmin: true)
        XCTAssertEqual(try store.memberRole(convoID: convo, did: user("bob")), .admin)
        try store.setAdmin(convoID: convo, did: user("alice"), isAdmin: false)
        XCTAssertEqual(try store.memberRole(convoID: convo, did: user("alice")), .member)
        XCTAssertEqual(deliveryError { try store.setAdmin(convoID: convo, did: user("zed"), isAdmin: true) }, .notMember)
        XCTAssertNil(try store.memberRole(convoID: convo, did: user("zed")))
    }
}
