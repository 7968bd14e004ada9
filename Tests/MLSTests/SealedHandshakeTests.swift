import MLS
import XCTest

/// Groups under OpenMLS's pure-ciphertext policy: every member commit and proposal is a PrivateMessage
/// under the handshake ratchet (RFC 9420 §6.3), external commits stay PublicMessages (§12.4.3.2),
/// and every member ends at the same epoch and exporter secret. The service's side of each commit,
/// `SealedCommitVerifier` on the commit and its GroupInfo, follows along and must agree.
final class SealedHandshakeTests: XCTestCase {
    /// The active members by name and the service's public state, moved on together.
    struct SealedRun {
        var members: [String: Group]
        var service: PublicGroup

        init(creator: String, _ group: Group) throws {
            members = [creator: group]
            service = try PublicGroup(groupInfo: try group.makeGroupInfo())
        }

        subscript(name: String) -> Group { members[name]! }

        mutating func join(_ name: String, _ group: Group) throws {
            members[name] = group
            try SealedFixtures.assertAgree(Array(members.values), service)
        }

        /// Every other member processes a proposal.
        mutating func deliver(_ message: MLSMessage, from sender: String) throws {
            for name in members.keys where name != sender { _ = try members[name]!.process(message) }
        }

        /// The service checks `commit` with the new epoch's GroupInfo and moves on; every other member
        /// processes it (those it removes leave the run); the committer becomes `group`; all agree.
        @discardableResult
        mutating func commit(by committer: String, group: Group, _ commit: MLSMessage, groupInfo: GroupInfo) throws
            -> VerifiedSealedTransition {
            let step = try SealedCommitVerifier(current: service).verify(commit: commit, groupInfo: groupInfo)
            service = step.next
            for name in members.keys where name != committer {
                _ = try members[name]!.process(commit)
                if !members[name]!.isActive { members[name] = nil }
            }
            members[committer] = group
            try SealedFixtures.assertAgree(Array(members.values), service)
            return step
        }

        @discardableResult
        mutating func commit(by committer: String, _ output: CommitOutput) throws -> VerifiedSealedTransition {
            try commit(by: committer, group: output.group, output.commit, groupInfo: output.groupInfo)
        }
    }

    func testSealedLifecycleEverySuite() throws {
        for suite in CipherSuite.allCases {
            try lifecycle(suite: suite)
        }
    }

    private func lifecycle(suite: CipherSuite) throws {
        let sealed = SealedFixtures.sealed
        var run = try SealedRun(creator: "alice", try SealedFixtures.create("alice", suite: suite).group)

        // Alice adds Bob and Carol with a path: a sealed commit nobody else has to process yet.
        let bobKP = try GroupFixtures.keyPackage("bob", suite: suite)
        let carolKP = try GroupFixtures.keyPackage("carol", suite: suite)
        let adds = try run["alice"].add(keyPackages: [bobKP.keyPackage, carolKP.keyPackage])
        XCTAssertEqual(try SealedFixtures.privateMessage(adds.commit).contentType, .commit)
        var step = try run.commit(by: "alice", adds)
        XCTAssertEqual(step.committer, .member(leaf: 0))
        XCTAssertTrue(step.committerPathUpdated)
        XCTAssertFalse(step.contentVerified)
        XCTAssertEqual(step.added.map(\.leafIndex), [1, 2])
        XCTAssertTrue(step.added[0].matches(bobKP.keyPackage))
        XCTAssertTrue(step.added[1].matches(carolKP.keyPackage))
        XCTAssertEqual(step.added[0].leafNodeBytes, bobKP.keyPackage.leafNode.encoded())
        XCTAssertTrue(step.removed.isEmpty)
        try run.join("bob", try SealedFixtures.join(adds, bobKP))
        try run.join("carol", try SealedFixtures.join(adds, carolKP))

        // Alice adds Dave without a path; Bob and Carol decrypt and apply the sealed commit.
        let daveKP = try GroupFixtures.keyPackage("dave", suite: suite)
        let addDave = try run["alice"].add(keyPackages: [daveKP.keyPackage], includePath: false)
        step = try run.commit(by: "alice", addDave)
        XCTAssertFalse(step.committerPathUpdated)
        XCTAssertEqual(step.added.map(\.leafIndex), [3])
        try run.join("dave", try SealedFixtures.join(addDave, daveKP))

        // Bob's self-update.
        let before = run.service.tree.leafNode(at: 1)
        step = try run.commit(by: "bob", try run["bob"].update())
        XCTAssertEqual(step.committer, .member(leaf: 1))
        XCTAssertTrue(step.committerPathUpdated && step.added.isEmpty && step.removed.isEmpty)
        XCTAssertNotEqual(step.committerLeafNode, before)

        // Carol proposes Dave's removal, sealed; Alice commits it by reference, sealed.
        let proposal = try run.members["carol"]!.proposeRemove(leaf: 3)
        let sealedProposal = try SealedFixtures.privateMessage(proposal)
        XCTAssertEqual(sealedProposal.contentType, .proposal)
        XCTAssertEqual(try SealedCommitVerifier(current: run.service).verify(proposal: sealedProposal).epoch, run.service.epoch)
        try run.deliver(proposal, from: "carol")
        XCTAssertEqual(run["alice"].pendingProposals.map(\.ref), run["carol"].pendingProposals.map(\.ref))
        step = try run.commit(by: "alice", try run["alice"].commit())
        XCTAssertEqual(step.removed.map(\.leafIndex), [3])
        XCTAssertEqual(step.removed.first?.leafNode.credential, SealedFixtures.credential("dave"))
        XCTAssertNil(run.members["dave"], "Dave was removed")

        // Bob changes the GroupContext extensions (with the path that requires).
        let extensions: [Extension] = [.requiredCapabilities(RequiredCapabilities(credentialTypes: [.basic]))]
        step = try run.commit(by: "bob", try run["bob"].commit(proposals: [.groupContextExtensions(extensions)], includePending: false))
        XCTAssertEqual(step.changedExtensions, extensions)

        // Alice removes Carol: the tree shrinks to two leaves.
        step = try run.commit(by: "alice", try run["alice"].remove(leaves: [2]))
        XCTAssertEqual(step.removed.map(\.leafIndex), [2])
        XCTAssertEqual(step.next.tree.leafCount, 2)
        XCTAssertNil(run.members["carol"])

        // Carol rejoins by external commit: a PublicMessage, which sealed members accept from a joiner.
        let rejoin = try Group.joinByExternalCommit(
            groupInfo: try run["alice"].makeGroupInfo(), credential: SealedFixtures.credential("carol"),
            signingKey: try GroupFixtures.signer(suite), configuration: sealed)
        XCTAssertEqual(rejoin.commit.wireFormat, .publicMessage)
        step = try run.commit(by: "carol", group: rejoin.group, rejoin.commit, groupInfo: try rejoin.group.makeGroupInfo())
        XCTAssertEqual(step.committer, .externalJoiner(leaf: 2))
        XCTAssertTrue(step.contentVerified)
        XCTAssertTrue(step.removed.isEmpty && step.added.isEmpty)

        // Bob resyncs: an external commit that removes his own old leaf and takes it again.
        let resync = try Group.joinByExternalCommit(
            groupInfo: try run["carol"].makeGroupInfo(), credential: SealedFixtures.credential("bob"),
            signingKey: try GroupFixtures.signer(suite), removing: 1, configuration: sealed)
        step = try run.commit(by: "bob", group: resync.group, resync.commit, groupInfo: try resync.group.makeGroupInfo())
        XCTAssertEqual(step.committer, .externalJoiner(leaf: 1))
        XCTAssertEqual(step.removed.map(\.leafIndex), [1])

        // Application data still flows, and a sealed commit after the joins goes through.
        let hello = try run.members["carol"]!.encrypt(Array("hello \(suite)".utf8))
        XCTAssertEqual(try run.members["alice"]!.decrypt(hello).data, Array("hello \(suite)".utf8))
        XCTAssertEqual(try run.members["bob"]!.decrypt(hello).sender, 2)
        try run.commit(by: "carol", try run["carol"].update())
        XCTAssertEqual(run.service.epoch, 9)
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
