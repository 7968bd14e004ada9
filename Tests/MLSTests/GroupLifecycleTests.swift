import MLS
import XCTest

/// Three members through create, add, messages, update, remove, leave, rejoin by external commit
/// and persistence, in every suite, with a PublicGroup validating every commit.
final class GroupLifecycleTests: XCTestCase {
    func testLifecycleEverySuite() throws {
        for suite in CipherSuite.allCases {
            try lifecycle(suite: suite)
        }
    }

    /// OpenMLS's X-Wing suite 0x004D, which the Catbird client uses.
    func testLifecycleXWingSuite() throws {
        try lifecycle(suite: .mls256XWingChaCha20Poly1305SHA256Ed25519)
    }

    private func lifecycle(suite: CipherSuite) throws {
        var (alice, bob, carol, observer) = try GroupFixtures.threeMembers(suite: suite)
        XCTAssertEqual(alice.epoch, 1)
        XCTAssertEqual(observer.members.map(\.leafIndex), [0, 1, 2])
        XCTAssertEqual(observer.lastCommit?.added.count, 2)
        GroupFixtures.assertAgree([alice, bob, carol], observer)

        // Application messages both ways.
        let hello = try alice.encrypt(Array("hello \(suite)".utf8))
        XCTAssertEqual(try bob.decrypt(hello).data, Array("hello \(suite)".utf8))
        XCTAssertEqual(try carol.decrypt(hello).sender, 0)
        let reply = try carol.encrypt(Array("hi".utf8), authenticatedData: [1, 2])
        XCTAssertEqual(try alice.decrypt(reply).data, Array("hi".utf8))
        XCTAssertThrowsError(try alice.decrypt(reply), "a generation is used once")

        // Bob updates with a path; a GroupInfo for the new epoch matches the observer.
        let update = try bob.update()
        observer = try observer.validateAndApply(commit: update.commit)
        try observer.verify(groupInfo: update.groupInfo)
        bob = update.group
        _ = try alice.process(update.commit)
        _ = try carol.process(update.commit)
        GroupFixtures.assertAgree([alice, bob, carol], observer)
        XCTAssertEqual(try alice.exportSecret(label: "test", context: [1], length: 32),
                       try bob.exportSecret(label: "test", context: [1], length: 32))

        // Alice removes Carol.
        let removal = try alice.remove(leaves: [2])
        observer = try observer.validateAndApply(commit: removal.commit)
        XCTAssertEqual(observer.lastCommit?.removed.map(\.leafIndex), [2])
        alice = removal.group
        _ = try bob.process(removal.commit)
        _ = try carol.process(removal.commit)
        XCTAssertFalse(carol.isActive)
        XCTAssertThrowsError(try carol.encrypt([1]))
        GroupFixtures.assertAgree([alice, bob], observer)

        // Bob leaves: a standalone self-remove that Alice commits by reference.
        let leave = try bob.proposeSelfRemove()
        _ = try alice.process(leave)
        try observer.recordProposal(try GroupFixtures.publicMessage(leave))
        let leaveCommit = try alice.commit()
        observer = try observer.validateAndApply(commit: leaveCommit.commit)
        alice = leaveCommit.group
        _ = try bob.process(leaveCommit.commit)
        XCTAssertFalse(bob.isActive)
        XCTAssertEqual(observer.members.map(\.leafIndex), [0])

        // Bob rejoins by external commit from a published GroupInfo.
        let info = try alice.makeGroupInfo()
        try observer.verify(groupInfo: info)
        let rejoin = try Group.joinByExternalCommit(
            groupInfo: info, credential: .basic(identity: Array("bob".utf8)), signingKey: try GroupFixtures.signer(suite))
        observer = try observer.validateAndApply(commit: rejoin.commit)
        XCTAssertEqual(observer.lastCommit?.isExternal, true)
        _ = try alice.process(rejoin.commit)
        var bob2 = rejoin.group
        GroupFixtures.assertAgree([alice, bob2], observer)

        // Persistence: a restored Alice reads Bob's message and does not reuse her own keys.
        let sent = try alice.encrypt([9])
        var restored = try Group(restoring: alice.persist())
        XCTAssertEqual(restored.epochAuthenticator, alice.epochAuthenticator)
        let fromBob = try bob2.encrypt([7, 7])
        XCTAssertEqual(try restored.decrypt(fromBob).data, [7, 7])
        let afterRestore = try restored.encrypt([9])
        XCTAssertEqual(try bob2.decrypt(sent).data, [9])
        XCTAssertEqual(try bob2.decrypt(afterRestore).data, [9])

        // The observer's stored form round-trips.
        let reloaded = try PublicGroup(serialized: observer.serialize())
        XCTAssertEqual(reloaded.groupContext, observer.groupContext)
        XCTAssertEqual(reloaded.interimTranscriptHash, observer.interimTranscriptHash)
    }

    func testRejoinReplacingOwnOldLeaf() throws {
        let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
        var (alice, _, carol, observer) = try GroupFixtures.threeMembers(suite: suite)
        let rejoin = try Group.joinByExternalCommit(
            groupInfo: try alice.makeGroupInfo(), credential: .basic(identity: Array("bob".utf8)),
            signingKey: try GroupFixtures.signer(suite), removing: 1)
        observer = try observer.validateAndApply(commit: rejoin.commit)
        XCTAssertEqual(observer.lastCommit?.removed.map(\.leafIndex), [1])
        XCTAssertEqual(rejoin.group.ownLeaf, 1)
        _ = try alice.process(rejoin.commit)
        _ = try carol.process(rejoin.commit)
        GroupFixtures.assertAgree([alice, carol, rejoin.group], observer)
    }

    func testPendingProposalsCommittedByReferenceAndAddWithoutPath() throws {
        let suite = CipherSuite.mls128DHKEMP256AES128GCMSHA256P256
        var (alice, bob, carol, observer) = try GroupFixtures.threeMembers(suite: suite)
        let dave = try GroupFixtures.keyPackage("dave", suite: suite)
        let proposal = try bob.proposeAdd(keyPackage: dave.keyPackage)
        _ = try alice.process(proposal)
        _ = try carol.process(proposal)
        try observer.recordProposal(try GroupFixtures.publicMessage(proposal))
        let output = try alice.commit(includePath: false)
        observer = try observer.validateAndApply(commit: output.commit)
        XCTAssertEqual(observer.lastCommit?.added.map(\.keyPackageRef), [dave.ref])
        alice = output.group
        _ = try bob.process(output.commit)
        _ = try carol.process(output.commit)
        let daveGroup = try Group.join(welcome: try XCTUnwrap(output.welcome), keyPackage: dave)
        GroupFixtures.assertAgree([alice, bob, carol, daveGroup], observer)
    }

    func testStandaloneProposalIsCachedWithItsRef() throws {
        let suite = CipherSuite.mls128DHKEMX25519ChaCha20Poly1305SHA256Ed25519
        var (alice, bob, _, _) = try GroupFixtures.threeMembers(suite: suite)
        let proposal = try bob.proposeRemove(leaf: 2)
        guard case .proposal(let cached) = try alice.process(proposal) else { return XCTFail("not a proposal") }
        XCTAssertEqual(cached.sender, .member(leafIndex: 1))
        XCTAssertEqual(alice.pendingProposals.map(\.ref), [cached.ref])
    }
}
