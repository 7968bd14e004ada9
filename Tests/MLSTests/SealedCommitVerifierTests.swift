import MLS
import MLSTestSupport
import XCTest

/// The service's check of sealed commits through their GroupInfo: what a dishonest committer can
/// put in a GroupInfo it signs, refused on public data (or, for a fabricated member, reported so the
/// service's KeyPackage match refuses it). Valid transitions of every commit type are in
/// `SealedHandshakeTests`.
final class SealedCommitVerifierTests: XCTestCase {
    let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519

    /// Alice (leaf 0, key kept), Bob (1) and Carol (2) under the pure-ciphertext policy, and the
    /// service's public state of epoch 1.
    struct Fixture {
        var alice: Group
        let aliceKey: SignaturePrivateKey
        var bob: Group
        let bobKey: SignaturePrivateKey
        var carol: Group
        var service: PublicGroup
        var verifier: SealedCommitVerifier { SealedCommitVerifier(current: service) }
    }

    func fixture() throws -> Fixture {
        let (alice, aliceKey) = try SealedFixtures.create("alice", suite: suite)
        let bobKP = try GroupFixtures.keyPackage("bob", suite: suite)
        let carolKP = try GroupFixtures.keyPackage("carol", suite: suite)
        let output = try alice.add(keyPackages: [bobKP.keyPackage, carolKP.keyPackage])
        let service = try SealedCommitVerifier(current: try PublicGroup(groupInfo: try alice.makeGroupInfo()))
            .verify(commit: output.commit, groupInfo: output.groupInfo).next
        return Fixture(alice: output.group, aliceKey: aliceKey, bob: try SealedFixtures.join(output, bobKP),
                       bobKey: bobKP.signingKey, carol: try SealedFixtures.join(output, carolKP), service: service)
    }

    private func expect(
        _ error: SealedCommitError, file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws -> VerifiedSealedTransition
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) {
            XCTAssertEqual($0 as? SealedCommitError, error, file: file, line: line)
        }
    }

    func testHeaderRefusals() throws {
        var f = try fixture()
        let update = try f.alice.update()
        let sealed = try SealedFixtures.privateMessage(update.commit)
        var other = sealed
        other.groupID[0] ^= 1
        expect(.wrongGroupID) { try f.verifier.verify(commit: other, groupInfo: update.groupInfo) }
        other = sealed
        other.epoch += 1
        expect(.wrongEpoch(expected: 1, actual: 2)) { try f.verifier.verify(commit: other, groupInfo: update.groupInfo) }
        other = sealed
        other.contentType = .application
        expect(.unexpectedContentType(.application)) { try f.verifier.verify(commit: other, groupInfo: update.groupInfo) }

        let proposal = try SealedFixtures.privateMessage(try f.bob.proposeRemove(leaf: 2))
        expect(.unexpectedContentType(.proposal)) { try f.verifier.verify(commit: proposal, groupInfo: update.groupInfo) }
        XCTAssertThrowsError(try f.verifier.verify(proposal: sealed)) {
            XCTAssertEqual($0 as? SealedCommitError, .unexpectedContentType(.commit))
        }
        var staleProposal = proposal
        staleProposal.epoch = 0
        XCTAssertThrowsError(try f.verifier.verify(proposal: staleProposal)) {
            XCTAssertEqual($0 as? SealedCommitError, .wrongEpoch(expected: 1, actual: 0))
        }

        // A member's PublicMessage commit is validated in full elsewhere, never on its GroupInfo's word.
        let (plain, _) = try SealedFixtures.create("dora", suite: suite, configuration: .default)
        let plainCommit = try plain.update()
        let plainVerifier = SealedCommitVerifier(current: plain.publicGroup)
        expect(.notSealed) { try plainVerifier.verify(commit: plainCommit.commit, groupInfo: plainCommit.groupInfo) }
    }

    func testGroupInfoSignedByNonMember() throws {
        let f = try fixture()
        let update = try f.alice.update()
        let forgery = GroupInfoForgery(update.groupInfo, suite: suite)

        // An outsider signs in Bob's name.
        let outsider = try GroupFixtures.signer(suite)
        let inBobsName = try forgery.signed(by: outsider, as: 1)
        expect(.invalidGroupInfoSignature) { try f.verifier.verify(commit: update.commit, groupInfo: inBobsName) }
        // Bob's key, but Bob did not commit: Bob's leaf is unchanged, so this would be a commit
        // without path by Bob; the verifier takes it as such, and the rebuild finds Alice's new path.
        let byBob = try forgery.signed(by: f.bobKey, as: 1)
        expect(.leafChanged(leaf: 0)) { try f.verifier.verify(commit: update.commit, groupInfo: byBob) }
        // A leaf index outside the tree, or a blank one.
        expect(.signerNotAMember(leaf: 99)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: outsider, as: 99)) }
        expect(.signerNotAMember(leaf: 3)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: outsider, as: 3)) }

        // A member added by this very commit signs: a new leaf, not a member of the current epoch
        // (a sealed commit cannot be an external join).
        let dave = try GroupFixtures.keyPackage("dave", suite: suite)
        let addDave = try f.alice.add(keyPackages: [dave.keyPackage])
        let byDave = try GroupInfoForgery(addDave.groupInfo, suite: suite).signed(by: dave.signingKey, as: 3)
        expect(.signerNotAMember(leaf: 3)) { try f.verifier.verify(commit: addDave.commit, groupInfo: byDave) }

        // The signer's leaf holds another credential in the new tree than in the current one.
        var renamed = forgery
        try renamed.editLeaf(0) { leaf in
            leaf.credential = SealedFixtures.credential("mallory")
            try leaf.resign(with: f.aliceKey, suite: suite, groupID: f.service.groupID, leaf: 0)
        }
        expect(.signerNotAMember(leaf: 0)) { try f.verifier.verify(commit: update.commit, groupInfo: try renamed.signed(by: f.aliceKey)) }
    }

    /// A committer adds a leaf claiming Erin with keys it made up: every public check passes (it is a
    /// real Add), so the transition must report it as an added leaf whose KeyPackage the service
    /// then looks for among Erin's published ones, and does not find.
    func testFabricatedLeafIsReportedForTheServiceToRefuse() throws {
        let f = try fixture()
        let erinPublished = try GroupFixtures.keyPackage("erin", suite: suite)
        let fabricated = try GroupFixtures.keyPackage("erin", suite: suite)
        let output = try f.alice.add(keyPackages: [fabricated.keyPackage])
        let transition = try f.verifier.verify(commit: output.commit, groupInfo: output.groupInfo)
        XCTAssertEqual(transition.added.count, 1)
        let added = try XCTUnwrap(transition.added.first)
        XCTAssertEqual(added.leafIndex, 3)
        XCTAssertEqual(added.credential, SealedFixtures.credential("erin"))
        XCTAssertEqual(added.leafNodeBytes, fabricated.keyPackage.leafNode.encoded())
        XCTAssertFalse(added.matches(erinPublished.keyPackage))
        XCTAssertNil([erinPublished.keyPackage].first(where: added.matches), "the service finds no published KeyPackage")
        XCTAssertTrue(added.matches(fabricated.keyPackage))
        XCTAssertEqual(transition.next.members.map(\.credential).last, SealedFixtures.credential("erin"))
        // The summary the service's bookkeeping takes holds only the KeyPackage the leaf is from.
        XCTAssertThrowsError(try transition.commitSummary(keyPackages: [3: erinPublished.keyPackage])) {
            XCTAssertEqual($0 as? SealedCommitError, .keyPackageMismatch(leaf: 3))
        }
        XCTAssertThrowsError(try transition.commitSummary(keyPackages: [:])) {
            XCTAssertEqual($0 as? SealedCommitError, .keyPackageMismatch(leaf: 3))
        }
        let summary = try transition.commitSummary(keyPackages: [3: fabricated.keyPackage])
        XCTAssertEqual(summary.added.map(\.keyPackageRef), [fabricated.ref])
        XCTAssertEqual(summary.committerLeaf, 0)
        XCTAssertFalse(summary.isExternal)
        XCTAssertNil(summary.reInit, "a sealed commit shows no ReInit")
    }

    func testAnotherMembersLeafChanged() throws {
        let f = try fixture()
        let update = try f.alice.update()
        let groupID = f.service.groupID
        for source in [LeafNodeSource.update, .commit(parentHash: [])] {
            var forgery = GroupInfoForgery(update.groupInfo, suite: suite)
            let mallory = try GroupFixtures.signer(suite)
            try forgery.editLeaf(2) { leaf in
                leaf.signatureKey = mallory.publicKey.bytes
                leaf.leafNodeSource = source
                try leaf.resign(with: mallory, suite: suite, groupID: groupID, leaf: 1)
            }
            expect(.leafChanged(leaf: 1)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        }
        // A leaf that is not from a KeyPackage appearing at a blank position.
        var forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        let mallory = try GroupFixtures.signer(suite)
        try forgery.editNode(6) { node in
            guard let bob = f.service.tree.leafNode(at: 1) else { return XCTFail("no bob") }
            var leaf = bob
            leaf.signatureKey = mallory.publicKey.bytes
            leaf.encryptionKey = try suite.generateHPKEKeyPair().publicKey
            leaf.leafNodeSource = .update
            try leaf.resign(with: mallory, suite: suite, groupID: groupID, leaf: 3)
            node = .leaf(leaf)
        }
        expect(.unexpectedLeaf(leaf: 3)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
    }

    func testBrokenParentHash() throws {
        let f = try fixture()
        let update = try f.alice.update()
        // The root (node 3 of a four-leaf tree) is on Alice's filtered direct path.
        var forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        try forgery.editParent(3) { parent in
            parent.parentHash = Array(repeating: 7, count: suite.nh)
        }
        expect(.invalidParentHash(node: 3)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        // Alice's own leaf with a parent_hash that is not the path's (re-signed by her).
        forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        try forgery.editLeaf(0) { leaf in
            leaf.leafNodeSource = .commit(parentHash: Array(repeating: 9, count: suite.nh))
            try leaf.resign(with: f.aliceKey, suite: suite, groupID: f.service.groupID, leaf: 0)
        }
        expect(.invalidParentHash(node: 0)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        // A path node left blank, or with unmerged leaves.
        forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        try forgery.editNode(1) { $0 = nil }
        expect(.committerPath(node: 1)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        try forgery.editParent(3) { parent in
            parent.unmergedLeaves = [2]
        }
        expect(.committerPath(node: 3)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
    }

    func testEpochSkipAndContextMismatches() throws {
        let f = try fixture()
        let update = try f.alice.update()
        var forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        forgery.groupInfo.groupContext.epoch += 1
        expect(.epochNotNext(expected: 2, actual: 3)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        forgery.groupInfo.groupContext.epoch = 1
        expect(.epochNotNext(expected: 2, actual: 1)) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        forgery.groupInfo.groupContext.groupID[0] ^= 1
        expect(.wrongGroupID) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        forgery.groupInfo.groupContext.cipherSuite = 3
        expect(.groupInfoMismatch("cipher suite")) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        forgery.groupInfo.confirmationTag = [1, 2, 3]
        expect(.groupInfoMismatch("confirmed transcript hash or confirmation tag is not Nh bytes")) {
            try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey))
        }
        // The GroupInfo as sent, but its signature broken.
        var unsigned = update.groupInfo
        unsigned.signature[0] ^= 1
        expect(.invalidGroupInfoSignature) { try f.verifier.verify(commit: update.commit, groupInfo: unsigned) }
    }

    func testTreeHashDiffersFromGroupContext() throws {
        let f = try fixture()
        let update = try f.alice.update()
        var forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        forgery.groupInfo.groupContext.treeHash[0] ^= 1
        expect(.treeHashMismatch) { try f.verifier.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        // The tree given separately must be the one the GroupContext hashes too.
        let tree = try forgery.tree
        var other = tree
        other.nodes.removeLast(2)
        expect(.treeHashMismatch) { try f.verifier.verify(commit: update.commit, groupInfo: update.groupInfo, ratchetTree: other) }
        // …and without any tree there is nothing to check.
        var bare = GroupInfoForgery(update.groupInfo, suite: suite)
        bare.groupInfo.extensions.removeAll { $0.extensionType == .ratchetTree }
        expect(.invalidGroupInfo(.invalidGroupInfo("no ratchet tree"))) {
            try f.verifier.verify(commit: update.commit, groupInfo: try bare.signed(by: f.aliceKey))
        }
        // Given separately, the honest tree passes.
        XCTAssertEqual(try f.verifier.verify(commit: update.commit, groupInfo: try bare.signed(by: f.aliceKey), ratchetTree: tree).epoch, 2)
    }

    func testParentChangedOffCommitterPath() throws {
        let f = try fixture()
        // Unmerged-leaf bookkeeping: an Add without path makes Dave (leaf 3) unmerged at the root;
        // the GroupInfo may neither drop that nor invent another.
        let dave = try GroupFixtures.keyPackage("dave", suite: suite)
        let addDave = try f.alice.add(keyPackages: [dave.keyPackage], includePath: false)
        let honest = try f.verifier.verify(commit: addDave.commit, groupInfo: addDave.groupInfo)
        XCTAssertEqual(honest.next.tree.parentNode(at: 3)?.unmergedLeaves, [3])
        var forgery: GroupInfoForgery
        for unmerged in [[], [1, 3], [3, 3]] as [[UInt32]] {
            forgery = GroupInfoForgery(addDave.groupInfo, suite: suite)
            try forgery.editParent(3) { parent in
                parent.unmergedLeaves = unmerged
            }
            expect(.parentChangedOffPath(node: 3)) { try f.verifier.verify(commit: addDave.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        }
        // Dave placed further right than the leftmost blank leaf.
        forgery = GroupInfoForgery(addDave.groupInfo, suite: suite)
        var wire = try forgery.tree
        let daveNode = wire.nodes[6]
        wire.nodes[6] = nil
        while wire.nodes.count < 11 { wire.nodes.append(nil) }
        wire.nodes[10] = daveNode
        try forgery.setTree(wire)
        expect(.addedLeafMisplaced(leaf: 5)) { try f.verifier.verify(commit: addDave.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }

        // With four members, node 5 (above Carol and Dave) is off Alice's path and blank.
        let update = try addDave.group.update()
        let next = SealedCommitVerifier(current: honest.next)
        XCTAssertNil(try next.verify(commit: update.commit, groupInfo: update.groupInfo).next.tree.node(at: 5))
        forgery = GroupInfoForgery(update.groupInfo, suite: suite)
        let key = try suite.generateHPKEKeyPair().publicKey
        try forgery.editNode(5) { $0 = .parent(ParentNode(encryptionKey: key)) }
        expect(.parentChangedOffPath(node: 5)) { try next.verify(commit: update.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
    }

    /// §12.4: removals and GroupContext extension changes need the committer's path.
    func testPathRequired() throws {
        let f = try fixture()
        let dave = try GroupFixtures.keyPackage("dave", suite: suite)
        let addDave = try f.alice.add(keyPackages: [dave.keyPackage], includePath: false)
        var forgery = GroupInfoForgery(addDave.groupInfo, suite: suite)
        forgery.groupInfo.groupContext.extensions = [.requiredCapabilities(RequiredCapabilities())]
        expect(.pathRequired) { try f.verifier.verify(commit: addDave.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        forgery = GroupInfoForgery(addDave.groupInfo, suite: suite)
        try forgery.editNode(4) { $0 = nil }
        expect(.pathRequired) { try f.verifier.verify(commit: addDave.commit, groupInfo: try forgery.signed(by: f.aliceKey)) }
        // A malformed known extension is refused, not read as absent.
        forgery = GroupInfoForgery(addDave.groupInfo, suite: suite)
        forgery.groupInfo.groupContext.extensions = [Extension(extensionType: .requiredCapabilities, extensionData: [0xff])]
        expect(.unsupportedExtensions("malformed required_capabilities")) {
            try f.verifier.verify(commit: addDave.commit, groupInfo: try forgery.signed(by: f.aliceKey))
        }
    }

    func testAddedLeafLifetime() throws {
        let f = try fixture()
        let expired = try GroupFixtures.keyPackage("dave", suite: suite, lifetime: Lifetime(notBefore: 0, notAfter: 1000))
        let output = try f.alice.add(keyPackages: [expired.keyPackage])
        expect(.addedLeafExpired(leaf: 3)) { try f.verifier.verify(commit: output.commit, groupInfo: output.groupInfo, now: 2000) }
        XCTAssertEqual(try f.verifier.verify(commit: output.commit, groupInfo: output.groupInfo, now: 500).added.count, 1)
    }

    func testExternalJoinRefusals() throws {
        let f = try fixture()
        let joinerKey = try GroupFixtures.signer(suite)
        let join = try Group.joinByExternalCommit(
            groupInfo: try f.alice.makeGroupInfo(), credential: SealedFixtures.credential("erin"), signingKey: joinerKey)
        let joinerInfo = try join.group.makeGroupInfo()
        // The GroupInfo must be the joiner's, of the epoch its commit makes.
        let byAlice = try GroupInfoForgery(joinerInfo, suite: suite).signed(by: f.aliceKey, as: 0)
        expect(.signerNotAMember(leaf: 0)) { try f.verifier.verify(commit: join.commit, groupInfo: byAlice) }
        XCTAssertThrowsError(try f.verifier.verify(commit: join.commit, groupInfo: try f.alice.makeGroupInfo())) {
            guard case .signerNotAMember = $0 as? SealedCommitError else { return XCTFail("\($0)") }
        }
        var wrongTag = GroupInfoForgery(joinerInfo, suite: suite)
        wrongTag.groupInfo.confirmationTag[0] ^= 1
        XCTAssertThrowsError(try f.verifier.verify(commit: join.commit, groupInfo: try wrongTag.signed(by: joinerKey))) {
            guard case .invalidGroupInfo = $0 as? SealedCommitError else { return XCTFail("\($0)") }
        }
        // An external commit that full validation refuses.
        guard case .publicMessage(var tampered) = join.commit.body else { return XCTFail("not public") }
        tampered.auth.signature[0] ^= 1
        XCTAssertThrowsError(try f.verifier.verify(commit: MLSMessage(body: .publicMessage(tampered)), groupInfo: joinerInfo)) {
            XCTAssertEqual($0 as? SealedCommitError, .invalidCommit(.invalidSignature))
        }
        // The honest pair passes.
        XCTAssertEqual(try f.verifier.verify(commit: join.commit, groupInfo: joinerInfo).committer, .externalJoiner(leaf: 3))
    }

    /// Every single-byte change to a signed GroupInfo (and to a tree given beside it) is refused,
    /// and none crashes: the signature covers the GroupInfo, the GroupContext's hash the tree.
    func testMutatedGroupInfosAreRefused() throws {
        let f = try fixture()
        let update = try f.alice.update()
        let info = update.groupInfo.encoded()
        var stripped = GroupInfoForgery(update.groupInfo, suite: suite)
        let tree = try stripped.tree
        stripped.groupInfo.extensions.removeAll { $0.extensionType == .ratchetTree }
        let separate = try stripped.signed(by: f.aliceKey)
        let treeBytes = tree.encoded()
        XCTAssertNoThrow(try f.verifier.verify(commit: update.commit, groupInfo: separate, ratchetTree: tree))

        // Every byte position, each flipped by a value that depends on the position.
        var checked = 0
        for index in info.indices {
            var bytes = info
            bytes[index] ^= UInt8(index % 255 + 1)
            guard let mutated = try? GroupInfo(decoding: bytes) else { continue }
            checked += 1
            XCTAssertThrowsError(try f.verifier.verify(commit: update.commit, groupInfo: mutated), "byte \(index)")
        }
        for index in treeBytes.indices {
            var bytes = treeBytes
            bytes[index] ^= UInt8(index % 255 + 1)
            guard let mutated = try? RatchetTree(decoding: bytes) else { continue }
            checked += 1
            XCTAssertThrowsError(try f.verifier.verify(commit: update.commit, groupInfo: separate, ratchetTree: mutated), "byte \(index)")
        }
        XCTAssertGreaterThan(checked, info.count / 2, "most mutations still decode and reach the verifier")
    }
}

