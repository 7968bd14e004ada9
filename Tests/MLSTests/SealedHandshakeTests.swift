import MLS
import XCTest

/// Groups under OpenMLS's pure-ciphertext policy: every member commit and proposal is a PrivateMessage
/// under the handshake ratchet (RFC 9420 §6.3), external commits stay PublicMessages (§12.4.3.2),
/// and every member ends at the same epoch and exporter secret. The service's side of each commit,
/// `SealedCommitVerifier` on the commit and its GroupInfo, follows along and must agree.
final class SealedHandshakeTests: XCTestCase {
    func testSealedLifecycleEverySuite() throws {
        for suite in CipherSuite.allCases {
            try lifecycle(suite: suite)
        }
    }

    private func lifecycle(suite: CipherSuite) throws {
        let sealed = SealedFixtures.sealed
        var (alice, _) = try SealedFixtures.create("alice", suite: suite)
        var service = try PublicGroup(groupInfo: try alice.makeGroupInfo())

        // Alice adds Bob and Carol with a path: a sealed commit nobody else has to process yet.
        let bobKP = try GroupFixtures.keyPackage("bob", suite: suite)
        let carolKP = try GroupFixtures.keyPackage("carol", suite: suite)
        let adds = try alice.add(keyPackages: [bobKP.keyPackage, carolKP.keyPackage])
        XCTAssertEqual(try SealedFixtures.privateMessage(adds.commit).contentType, .commit)
        var step = try SealedCommitVerifier(current: service).verify(commit: adds.commit, groupInfo: adds.groupInfo)
        XCTAssertEqual(step.committer, .member(leaf: 0))
        XCTAssertTrue(step.committerPathUpdated)
        XCTAssertFalse(step.contentVerified)
        XCTAssertEqual(step.added.map(\.leafIndex), [1, 2])
        XCTAssertTrue(step.added[0].matches(bobKP.keyPackage))
        XCTAssertTrue(step.added[1].matches(carolKP.keyPackage))
        XCTAssertEqual(step.added[0].leafNodeBytes, bobKP.keyPackage.leafNode.encoded())
        XCTAssertTrue(step.removed.isEmpty)
        alice = adds.group
        service = step.next
        var bob = try SealedFixtures.join(adds, bobKP)
        var carol = try SealedFixtures.join(adds, carolKP)
        try SealedFixtures.assertAgree([alice, bob, carol], service)

        // Alice adds Dave without a path; Bob and Carol decrypt and apply the sealed commit.
        let daveKP = try GroupFixtures.keyPackage("dave", suite: suite)
        let addDave = try alice.add(keyPackages: [daveKP.keyPackage], includePath: false)
        step = try SealedCommitVerifier(current: service).verify(commit: addDave.commit, groupInfo: addDave.groupInfo)
        XCTAssertFalse(step.committerPathUpdated)
        XCTAssertEqual(step.added.map(\.leafIndex), [3])
        alice = addDave.group
        service = step.next
        var others = [bob, carol]
        try SealedFixtures.deliver(addDave.commit, to: &others)
        (bob, carol) = (others[0], others[1])
        var dave = try SealedFixtures.join(addDave, daveKP)
        try SealedFixtures.assertAgree([alice, bob, carol, dave], service)

        // Bob's self-update.
        let update = try bob.update()
        step = try SealedCommitVerifier(current: service).verify(commit: update.commit, groupInfo: update.groupInfo)
        XCTAssertEqual(step.committer, .member(leaf: 1))
        XCTAssertTrue(step.committerPathUpdated && step.added.isEmpty && step.removed.isEmpty)
        XCTAssertNotEqual(step.committerLeafNode, service.tree.leafNode(at: 1))
        bob = update.group
        service = step.next
        others = [alice, carol, dave]
        try SealedFixtures.deliver(update.commit, to: &others)
        (alice, carol, dave) = (others[0], others[1], others[2])
        try SealedFixtures.assertAgree([alice, bob, carol, dave], service)

        // Carol proposes Dave's removal, sealed; Alice commits it by reference, sealed.
        let proposal = try carol.proposeRemove(leaf: 3)
        let sealedProposal = try SealedFixtures.privateMessage(proposal)
        XCTAssertEqual(sealedProposal.contentType, .proposal)
        XCTAssertEqual(try SealedCommitVerifier(current: service).verify(proposal: sealedProposal).epoch, service.epoch)
        others = [alice, bob, dave]
        try SealedFixtures.deliver(proposal, to: &others)
        (alice, bob, dave) = (others[0], others[1], others[2])
        XCTAssertEqual(alice.pendingProposals.map(\.ref), carol.pendingProposals.map(\.ref))
        let removeDave = try alice.commit()
        step = try SealedCommitVerifier(current: service).verify(commit: removeDave.commit, groupInfo: removeDave.groupInfo)
        XCTAssertEqual(step.removed.map(\.leafIndex), [3])
        XCTAssertEqual(step.removed.first?.leafNode.credential, SealedFixtures.credential("dave"))
        alice = removeDave.group
        service = step.next
        others = [bob, carol, dave]
        try SealedFixtures.deliver(removeDave.commit, to: &others)
        (bob, carol, dave) = (others[0], others[1], others[2])
        XCTAssertFalse(dave.isActive)
        try SealedFixtures.assertAgree([alice, bob, carol], service)

        // Bob changes the GroupContext extensions (with the path that requires).
        let extensions: [Extension] = [.requiredCapabilities(RequiredCapabilities(credentialTypes: [.basic]))]
        let gce = try bob.commit(proposals: [.groupContextExtensions(extensions)], includePending: false)
        step = try SealedCommitVerifier(current: service).verify(commit: gce.commit, groupInfo: gce.groupInfo)
        XCTAssertEqual(step.changedExtensions, extensions)
        bob = gce.group
        service = step.next
        others = [alice, carol]
        try SealedFixtures.deliver(gce.commit, to: &others)
        (alice, carol) = (others[0], others[1])
        try SealedFixtures.assertAgree([alice, bob, carol], service)

        // Alice removes Carol: the tree shrinks to two leaves.
        let removeCarol = try alice.remove(leaves: [2])
        step = try SealedCommitVerifier(current: service).verify(commit: removeCarol.commit, groupInfo: removeCarol.groupInfo)
        XCTAssertEqual(step.removed.map(\.leafIndex), [2])
        XCTAssertEqual(step.next.tree.leafCount, 2)
        alice = removeCarol.group
        service = step.next
        others = [bob, carol]
        try SealedFixtures.deliver(removeCarol.commit, to: &others)
        (bob, carol) = (others[0], others[1])
        XCTAssertFalse(carol.isActive)
        try SealedFixtures.assertAgree([alice, bob], service)

        // Carol rejoins by external commit: a PublicMessage, which sealed members accept from a joiner.
        let carolKey = try GroupFixtures.signer(suite)
        let rejoin = try Group.joinByExternalCommit(
            groupInfo: try alice.makeGroupInfo(), credential: SealedFixtures.credential("carol"), signingKey: carolKey,
            configuration: sealed)
        XCTAssertEqual(rejoin.commit.wireFormat, .publicMessage)
        let carolInfo = try rejoin.group.makeGroupInfo()
        step = try SealedCommitVerifier(current: service).verify(commit: rejoin.commit, groupInfo: carolInfo)
        XCTAssertEqual(step.committer, .externalJoiner(leaf: 2))
        XCTAssertTrue(step.contentVerified)
        XCTAssertTrue(step.removed.isEmpty && step.added.isEmpty)
        carol = rejoin.group
        service = step.next
        others = [alice, bob]
        try SealedFixtures.deliver(rejoin.commit, to: &others)
        (alice, bob) = (others[0], others[1])
        try SealedFixtures.assertAgree([alice, bob, carol], service)

        // Bob resyncs: an external commit that removes his own old leaf and takes it again.
        let resync = try Group.joinByExternalCommit(
            groupInfo: try carol.makeGroupInfo(), credential: SealedFixtures.credential("bob"),
            signingKey: try GroupFixtures.signer(suite), removing: 1, configuration: sealed)
        step = try SealedCommitVerifier(current: service).verify(commit: resync.commit, groupInfo: try resync.group.makeGroupInfo())
        XCTAssertEqual(step.committer, .externalJoiner(leaf: 1))
        XCTAssertEqual(step.removed.map(\.leafIndex), [1])
        bob = resync.group
        service = step.next
        others = [alice, carol]
        try SealedFixtures.deliver(resync.commit, to: &others)
        (alice, carol) = (others[0], others[1])
        try SealedFixtures.assertAgree([alice, bob, carol], service)

        // Application data still flows, and a sealed commit after the joins goes through.
        let hello = try carol.encrypt(Array("hello \(suite)".utf8))
        XCTAssertEqual(try alice.decrypt(hello).data, Array("hello \(suite)".utf8))
        XCTAssertEqual(try bob.decrypt(hello).sender, 2)
        let last = try carol.update()
        step = try SealedCommitVerifier(current: service).verify(commit: last.commit, groupInfo: last.groupInfo)
        carol = last.group
        service = step.next
        others = [alice, bob]
        try SealedFixtures.deliver(last.commit, to: &others)
        try SealedFixtures.assertAgree(others + [carol], service)
        XCTAssertEqual(service.epoch, 9)
    }

    /// OpenMLS's incoming check: a pure-ciphertext member refuses another member's PublicMessage
    /// handshake, a pure-plaintext member a PrivateMessage one, and neither changes state.
    func testIncomingPolicyRefusesTheOtherWireFormat() throws {
        let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
        for outgoing in [WireFormatPolicy.mixedPlaintext, .mixedCiphertext] {
            var (alice, _) = try SealedFixtures.create("alice", suite: suite, configuration: GroupConfiguration(wireFormatPolicy: outgoing))
            let bobKP = try GroupFixtures.keyPackage("bob", suite: suite)
            let carolKP = try GroupFixtures.keyPackage("carol", suite: suite)
            let adds = try alice.add(keyPackages: [bobKP.keyPackage, carolKP.keyPackage])
            alice = adds.group
            let strictSealed = try SealedFixtures.join(adds, bobKP, configuration: GroupConfiguration(wireFormatPolicy: .pureCiphertext))
            let strictPublic = try SealedFixtures.join(adds, carolKP, configuration: GroupConfiguration(wireFormatPolicy: .purePlaintext))

            let proposal = try alice.proposeRemove(leaf: 2)
            let update = try alice.update()
            XCTAssertEqual(update.commit.wireFormat, outgoing.outgoingWireFormat)
            XCTAssertEqual(proposal.wireFormat, outgoing.outgoingWireFormat)
            let (refuser, acceptor) = outgoing == .mixedPlaintext ? (strictSealed, strictPublic) : (strictPublic, strictSealed)
            for message in [proposal, update.commit] {
                var trial = refuser
                XCTAssertThrowsError(try trial.process(message)) {
                    guard case .unexpectedMessage = $0 as? GroupError else { return XCTFail("\($0)") }
                }
                XCTAssertEqual(trial.epoch, refuser.epoch)
                XCTAssertTrue(trial.pendingProposals.isEmpty)
            }
            var accepting = acceptor
            _ = try accepting.process(update.commit)
            XCTAssertEqual(accepting.epoch, update.group.epoch)
            // Application data is a PrivateMessage under every policy.
            var committer = update.group
            let text = try committer.encrypt([1, 2, 3])
            XCTAssertEqual(try accepting.decrypt(text).data, [1, 2, 3])
        }
    }

    /// The service's full validation takes PublicMessages only; a sealed commit goes to the verifier.
    func testPublicGroupRefusesSealedCommit() throws {
        let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
        let (alice, _) = try SealedFixtures.create("alice", suite: suite)
        let service = try PublicGroup(groupInfo: try alice.makeGroupInfo())
        let output = try alice.add(keyPackages: [try GroupFixtures.keyPackage("bob", suite: suite).keyPackage])
        XCTAssertThrowsError(try service.validateAndApply(commit: output.commit)) {
            guard case .unexpectedMessage = $0 as? GroupError else { return XCTFail("\($0)") }
        }
    }

    /// Sealed proposals move the proposer's handshake ratchet, and a restored member keeps both the
    /// policy and the ratchet position, so no handshake key is used twice.
    func testSealedProposalsAndPersistence() throws {
        let suite = CipherSuite.mls128DHKEMP256AES128GCMSHA256P256
        var (alice, _) = try SealedFixtures.create("alice", suite: suite)
        let bobKP = try GroupFixtures.keyPackage("bob", suite: suite)
        let carolKP = try GroupFixtures.keyPackage("carol", suite: suite)
        let adds = try alice.add(keyPackages: [bobKP.keyPackage, carolKP.keyPackage])
        alice = adds.group
        var bob = try SealedFixtures.join(adds, bobKP)

        let first = try bob.proposeRemove(leaf: 2)
        var restored = try Group(restoring: bob.persist())
        XCTAssertEqual(restored.configuration.wireFormatPolicy, .pureCiphertext)
        let second = try restored.proposeAdd(keyPackage: try GroupFixtures.keyPackage("dave", suite: suite).keyPackage)
        XCTAssertNotEqual(try SealedFixtures.privateMessage(first).ciphertext, try SealedFixtures.privateMessage(second).ciphertext)
        _ = try alice.process(first)
        _ = try alice.process(second)
        XCTAssertEqual(alice.pendingProposals.count, 2)
        XCTAssertThrowsError(try alice.process(first), "a handshake generation is used once")

        // A state persisted before the policy existed (format 1) restores with the default policy.
        var legacy = alice.persist()
        legacy[5] = 1
        legacy.removeLast(2)
        let old = try Group(restoring: legacy)
        XCTAssertEqual(old.configuration.wireFormatPolicy, GroupConfiguration.default.wireFormatPolicy)
        XCTAssertEqual(old.epochAuthenticator, alice.epochAuthenticator)
        var corrupt = alice.persist()
        corrupt[corrupt.count - 1] = 9
        XCTAssertThrowsError(try Group(restoring: corrupt))
    }
}
