@testable import MLS
import MLSMutations
import Primitives
import XCTest

/// The public checks of issue 13, one by one, each on a commit our Group made and then altered as
/// its committer could (CommitOutput.resealed): the observer refuses it, and so does the member the
/// change hurts.
final class PublicValidationTests: XCTestCase {
    let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519

    private func assertRefused(_ message: MLSMessage, by observer: PublicGroup, _ expected: GroupError,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try observer.validateAndApply(commit: message), file: file, line: line) {
            XCTAssertEqual($0 as? GroupError, expected, file: file, line: line)
        }
    }

    /// `output`'s commit with its Commit changed and framed again as the committer would.
    private func altered(_ output: CommitOutput, _ change: (inout Commit) -> Void) throws -> MLSMessage {
        let message = try GroupFixtures.publicMessage(output.commit)
        guard case .commit(var commit) = message.content.content else { throw GroupError.unexpectedMessage("test") }
        change(&commit)
        var content = message.content
        content.content = .commit(commit)
        return output.resealed(content)
    }

    /// Four members so that Bob's path has a copath node with two members (Carol and Dave).
    private func fourMembers() throws -> (groups: [Group], observer: PublicGroup) {
        var (alice, bob, carol, observer) = try GroupFixtures.threeMembers(suite: suite)
        let dave = try GroupFixtures.keyPackage("dave", suite: suite)
        let output = try alice.add(keyPackages: [dave.keyPackage])
        observer = try observer.validateAndApply(commit: output.commit)
        _ = try bob.process(output.commit)
        _ = try carol.process(output.commit)
        alice = output.group
        return ([alice, bob, carol, try Group.join(welcome: output.welcome!, keyPackage: dave)], observer)
    }

    func test_droppedPathSecret_isRefused_andItsMemberCouldNotFollow() throws {
        let (groups, observer) = try fourMembers()
        let output = try groups[0].update()
        // Alice's path: node 1 encrypts to Bob, node 3 to the resolution of node 5 (Carol, Dave).
        let dropped = try altered(output) { $0.path!.nodes[1].encryptedPathSecret.removeLast() }
        assertRefused(dropped, by: observer, .tree(.ciphertextCountMismatch(node: 3)))
        var carol = groups[2], dave = groups[3]
        XCTAssertThrowsError(try dave.process(dropped))
        XCTAssertThrowsError(try carol.process(dropped))
        // The unaltered commit goes through for everyone.
        XCTAssertNoThrow(try observer.validateAndApply(commit: output.commit))
        XCTAssertNoThrow(try dave.process(output.commit))
    }

    func test_ciphertextForANewMember_isRefused() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let erin = try GroupFixtures.keyPackage("erin", suite: suite)
        let output = try alice.add(keyPackages: [erin.keyPackage])
        // Erin is added by this commit: the path must not encrypt to her (RFC 9420 §7.6).
        let extra = try altered(output) { commit in
            let last = commit.path!.nodes.count - 1
            commit.path!.nodes[last].encryptedPathSecret.append(commit.path!.nodes[last].encryptedPathSecret[0])
        }
        XCTAssertThrowsError(try observer.validateAndApply(commit: extra)) { error in
            guard case .tree(.ciphertextCountMismatch) = error as? GroupError else { return XCTFail("\(error)") }
        }
    }

    func test_malformedCiphertext_isRefused() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let output = try alice.update()
        let truncated = try altered(output) { $0.path!.nodes[0].encryptedPathSecret[0].ciphertext.removeLast() }
        assertRefused(truncated, by: observer, .tree(.malformedCiphertext(node: 1)))
        let smallOrder = try altered(output) {
            $0.path!.nodes[0].encryptedPathSecret[0].kemOutput = [UInt8](repeating: 0, count: 32)
        }
        assertRefused(smallOrder, by: observer, .tree(.malformedCiphertext(node: 1)))
    }

    func test_reusedEncryptionKeys_areRefused() throws {
        let (groups, observer) = try fourMembers()
        let output = try groups[1].update()
        let signer = try XCTUnwrap(groups[1].signingKey)
        func leaf(_ change: (inout LeafNode) -> Void) throws -> MLSMessage {
            try altered(output) { commit in
                change(&commit.path!.leafNode)
                commit.path!.leafNode.signature = try! suite.signWithLabel(
                    signer, label: "LeafNodeTBS", content: commit.path!.leafNode.tbs(groupID: observer.groupID, leafIndex: 1).encoded())
            }
        }
        let old = try XCTUnwrap(observer.tree.leafNode(at: 1)?.encryptionKey)
        assertRefused(try leaf { $0.encryptionKey = old }, by: observer, .tree(.leafEncryptionKeyUnchanged(leaf: 1)))
        let carols = try XCTUnwrap(observer.tree.leafNode(at: 2)?.encryptionKey)
        assertRefused(try leaf { $0.encryptionKey = carols }, by: observer, .tree(.duplicateEncryptionKey(node: 2)))
        let pathKey = try XCTUnwrap(output.group.tree.parentNode(at: 1)?.encryptionKey)
        assertRefused(try leaf { $0.encryptionKey = pathKey }, by: observer, .tree(.duplicateEncryptionKey(node: 1)))
        let reusedNode = try altered(output) { $0.path!.nodes[0].encryptionKey = carols }
        assertRefused(reusedNode, by: observer, .tree(.duplicateEncryptionKey(node: 1)))
    }

    func test_malformedGroupContextExtensions_areRefused() throws {
        let (alice, bob, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        for (name, data) in [("truncated", [UInt8](RequiredCapabilities(credentialTypes: [.basic]).encoded().dropLast())),
                             ("trailing byte", RequiredCapabilities().encoded() + [0])] {
            let malformed = Extension(extensionType: .requiredCapabilities, extensionData: data)
            XCTAssertThrowsError(try alice.commit(proposals: [.groupContextExtensions([malformed])]), name) {
                XCTAssertEqual($0 as? GroupError, .malformedExtension(.requiredCapabilities), name)
            }
            let output = try alice.commit(proposals: [.groupContextExtensions([])])
            let message = try altered(output) { $0.proposals = [.proposal(.groupContextExtensions([malformed]))] }
            assertRefused(message, by: observer, .malformedExtension(.requiredCapabilities))
            var member = bob
            XCTAssertThrowsError(try member.process(message), name)
        }
        let senders = Extension(extensionType: .externalSenders, extensionData: [0x02, 0x00])
        XCTAssertThrowsError(try alice.commit(proposals: [.groupContextExtensions([senders])])) {
            XCTAssertEqual($0 as? GroupError, .malformedExtension(.externalSenders))
        }
    }

    func test_groupInfoWithMalformedRequiredCapabilities_isRefused() throws {
        let signer = try GroupFixtures.signer(suite)
        let group = try Group.create(suite: suite, credential: .basic(identity: [1]), signingKey: signer)
        var info = try group.makeGroupInfo()
        info.groupContext.extensions = [Extension(extensionType: .requiredCapabilities, extensionData: [0x07])]
        try info.sign(with: signer, suite: suite)
        XCTAssertThrowsError(try PublicGroup(groupInfo: info)) { XCTAssertEqual($0 as? GroupError, .malformedExtension(.requiredCapabilities)) }
    }

    func test_groupInfoExtensions_areChecked() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let signer = alice.signingKey
        var repeated = try alice.makeGroupInfo()
        repeated.extensions.append(repeated.extensions[0])
        try repeated.sign(with: signer, suite: suite)
        XCTAssertThrowsError(try observer.verify(groupInfo: repeated)) { XCTAssertEqual($0 as? GroupError, .invalidGroupInfo("repeated extension type")) }
        var badPub = try alice.makeGroupInfo()
        badPub.extensions = badPub.extensions.map { $0.extensionType == .externalPub ? .externalPub([UInt8](repeating: 0, count: 32)) : $0 }
        try badPub.sign(with: signer, suite: suite)
        XCTAssertThrowsError(try observer.verify(groupInfo: badPub)) {
            XCTAssertEqual($0 as? GroupError, .invalidGroupInfo("external_pub is not a valid key"))
        }
        XCTAssertNoThrow(try observer.verify(groupInfo: try alice.makeGroupInfo()))
    }

    func test_unmergedLeaves_mustBeStrictlyIncreasing() throws {
        let (tree, _, _) = try TreeFixtures.group(size: 3)
        var grown = tree
        grown.add(try TreeFixtures.member("fourth").leafNode)
        XCTAssertNoThrow(try grown.checkUnmergedLeaves())
        for list: [UInt32] in [[3, 3], [2, 3, 3]] {
            var wire = grown.ratchetTree
            guard case .parent(var parent) = wire.nodes[3] else { return XCTFail("node 3 should be a parent") }
            parent.unmergedLeaves = list
            wire.nodes[3] = .parent(parent)
            let tampered = try PublicRatchetTree(suite: TreeFixtures.suite, tree: wire)
            XCTAssertThrowsTreeError(.unmergedLeavesNotSorted(node: 3)) { try tampered.checkUnmergedLeaves() }
        }
        XCTAssertTrue([1, 4, 9].sortedContains(4))
        XCTAssertFalse([1, 4, 9].sortedContains(5))
        XCTAssertEqual([1, 4, 9].sortedInsertionIndex(of: 5), 2)
    }

    func test_invalidKEMKeys_areRecognized() throws {
        let x25519 = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519.kem
        XCTAssertTrue(x25519.isValidPublicKey(try x25519.generateKeyPair().publicKey))
        XCTAssertFalse(x25519.isValidPublicKey([UInt8](repeating: 0, count: 32)))
        XCTAssertFalse(x25519.isValidPublicKey([1] + [UInt8](repeating: 0, count: 31)), "the point of order 1")
        XCTAssertFalse(x25519.isValidPublicKey([UInt8](repeating: 9, count: 31)))
        let p256 = CipherSuite.mls128DHKEMP256AES128GCMSHA256P256.kem
        var key = try p256.generateKeyPair().publicKey
        XCTAssertTrue(p256.isValidPublicKey(key))
        key[40] ^= 1
        XCTAssertFalse(p256.isValidPublicKey(key), "off the curve")
        XCTAssertFalse(p256.isValidPublicKey([0x02] + key[1...32]), "compressed points are not HPKE's serialization")
    }

    func test_externalInitWithInvalidKEMOutput_isRefused() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let join = try Group.externalCommit(groupInfo: try alice.makeGroupInfo(), credential: .basic(identity: [7]),
                                            signingKey: try GroupFixtures.signer(suite))
        let message = try GroupFixtures.publicMessage(join.commit)
        guard case .commit(var commit) = message.content.content else { return XCTFail() }
        commit.proposals = [.proposal(.externalInit(kemOutput: [UInt8](repeating: 0, count: 32)))]
        var content = message.content
        content.content = .commit(commit)
        assertRefused(join.resealed(content), by: observer,
                      .invalidProposal(.externalInit, "kem_output is not a valid encapsulated key"))
        XCTAssertNoThrow(try observer.validateAndApply(commit: join.commit))
    }

    func test_commitOfPendingProposals_takesOneRemovePerLeaf() throws {
        var (alice, bob, carol, observer) = try GroupFixtures.threeMembers(suite: suite)
        for data: [UInt8] in [[], [1]] {
            let proposal = try carol.proposeSelfRemove(authenticatedData: data)
            _ = try alice.process(proposal)
            try observer.recordProposal(try GroupFixtures.publicMessage(proposal))
        }
        XCTAssertEqual(alice.pendingProposals.count, 2)
        let output = try alice.commit()
        XCTAssertEqual(output.summary.removed.map(\.leafIndex), [2])
        XCTAssertNoThrow(try observer.validateAndApply(commit: output.commit))
        // Bob saw only the first request (the same bytes again: Ed25519 signs deterministically); the
        // commit refers to that one alone, so he follows.
        _ = try bob.process(try carol.proposeSelfRemove())
        XCTAssertEqual(bob.pendingProposals.count, 1)
        XCTAssertNoThrow(try bob.process(output.commit))
    }

    func test_tagLengths_areChecked() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        var message = try GroupFixtures.publicMessage(try alice.update().commit)
        message.auth.confirmationTag?.removeLast()
        XCTAssertThrowsError(try observer.validateAndApply(commit: message)) { XCTAssertEqual($0 as? GroupError, .invalidConfirmationTag) }
        message = try GroupFixtures.publicMessage(try alice.update().commit)
        message.membershipTag = []
        XCTAssertThrowsError(try observer.validateAndApply(commit: message)) { XCTAssertEqual($0 as? GroupError, .invalidMembershipTag) }
    }

    /// A slice of the mls-mutants campaign (all of it runs from a release build in `make test`).
    func test_mutationCampaign_smallSlice_agrees() throws {
        let campaign = MutationCampaign(suites: [suite], byteFlips: 8, scenarios: ["self-update", "external-join"])
        let report = try campaign.run(now: UInt64(Date().timeIntervalSince1970))
        XCTAssertEqual(report.disagreements, [])
        XCTAssertGreaterThan(report.mutants, 300)
        XCTAssertGreaterThan(report.bothAccept, 0)
        XCTAssertGreaterThan(report.bothReject, 0)
    }
}
