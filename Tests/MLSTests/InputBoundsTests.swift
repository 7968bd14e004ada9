import MLS
import Primitives
import XCTest

/// Issue 14: what the decoders and the tree import refuse before they allocate for it. Each bound
/// is shown from both sides: one entry more is refused, exactly the bound is kept.
final class InputBoundsTests: XCTestCase {
    typealias F = TreeFixtures

    // MARK: DecodingLimits

    /// `uint16 values<V>` with `count` entries.
    func vector(_ count: Int) -> [UInt8] {
        var writer = TLSWriter()
        writer.writeVector((0..<count).map { UInt16(truncatingIfNeeded: $0) })
        return writer.bytes
    }

    func readValues(_ bytes: [UInt8], limits: DecodingLimits, maxCount: Int = .max) throws -> [UInt16] {
        var reader = TLSReader(bytes, limits: limits)
        return try reader.readVector(maxCount: maxCount) { (r: inout TLSReader) throws(DecodingError) in try r.readUInt16() }
    }

    func test_readVector_refusesTheEntryPastTheLimit_andKeepsExactlyTheLimit() throws {
        XCTAssertEqual(try readValues(vector(5), limits: DecodingLimits(maxVectorElements: 5)).count, 5)
        XCTAssertThrowsError(try readValues(vector(6), limits: DecodingLimits(maxVectorElements: 5))) {
            XCTAssertEqual($0 as? DecodingError, .tooManyElements(limit: 5))
        }
        // A field's own bound and the reader's: the smaller wins.
        XCTAssertThrowsError(try readValues(vector(4), limits: DecodingLimits(maxVectorElements: 5), maxCount: 3)) {
            XCTAssertEqual($0 as? DecodingError, .tooManyElements(limit: 3))
        }
        XCTAssertEqual(try readValues(vector(100_000), limits: .unlimited).count, 100_000)
    }

    /// Nested vectors are each bounded: a KeyPackage's capability list inside a commit's proposals.
    func test_limitsReachNestedVectors() throws {
        let bundle = try GroupFixtures.keyPackage("nested", suite: F.suite)
        let commit = Commit(proposals: [.proposal(.add(bundle.keyPackage))])
        let longest = max(bundle.keyPackage.leafNode.capabilities.versions.count,
                          bundle.keyPackage.leafNode.capabilities.cipherSuites.count,
                          bundle.keyPackage.leafNode.capabilities.credentials.count)
        XCTAssertNoThrow(try Commit(decoding: commit.encoded(), limits: DecodingLimits(maxVectorElements: longest)))
        XCTAssertThrowsError(try Commit(decoding: commit.encoded(), limits: DecodingLimits(maxVectorElements: longest - 1))) {
            XCTAssertEqual($0 as? DecodingError, .tooManyElements(limit: longest - 1))
        }
    }

    /// The duplicated-Welcome attack's shape: 20,000 copies of one EncryptedGroupSecrets. With room
    /// for one entry per Add, the second copy is refused.
    func test_welcome_withMoreSecretsThanAllowed_isRefusedAtTheFirstExtraEntry() throws {
        let entry = EncryptedGroupSecrets(newMember: [UInt8](repeating: 1, count: 32),
                                          encryptedGroupSecrets: HPKECiphertext(kemOutput: [2], ciphertext: [3]))
        let welcome = MLSMessage(body: .welcome(Welcome(cipherSuite: 1, secrets: Array(repeating: entry, count: 20_000),
                                                        encryptedGroupInfo: [4])))
        let bytes = welcome.encoded()
        XCTAssertThrowsError(try MLSMessage(decoding: bytes, limits: DecodingLimits(maxVectorElements: 1))) {
            XCTAssertEqual($0 as? DecodingError, .tooManyElements(limit: 1))
        }
        guard case .welcome(let decoded) = try MLSMessage(decoding: bytes).body else { return XCTFail("not a Welcome") }
        XCTAssertEqual(decoded.secrets.count, 20_000, "without limits the same bytes decode")
    }

    // MARK: TreeLimits

    /// A tree of one member whose leaf is at `leaf`: everything left of it blank.
    func farLeafTree(_ member: TreeTestMember, at leaf: Int) -> RatchetTree {
        var nodes = [Node?](repeating: nil, count: 2 * leaf + 1)
        nodes[2 * leaf] = .leaf(member.leafNode)
        return RatchetTree(nodes: nodes)
    }

    func test_treeWiderThanMaxLeaves_isRefusedFromItsNodeCount() throws {
        let member = try F.member("far")
        let wire = farLeafTree(member, at: 8)
        XCTAssertThrowsTreeError(.treeTooWide(lastLeaf: 8, maxLeaves: 8)) {
            try PublicRatchetTree(suite: F.suite, tree: wire, limits: TreeLimits(maxLeaves: 8))
        }
        let kept = try PublicRatchetTree(suite: F.suite, tree: wire, limits: TreeLimits(maxLeaves: 9))
        XCTAssertEqual(kept.leafCount, 16)
        XCTAssertEqual(kept.members.map(\.leaf), [8])
    }

    /// The blank-tree attack: a leaf at index 3,000,000 costs 6 MB on the wire and would be padded to
    /// 8,388,607 nodes with a hash each. The decoder stops at the bound's node count.
    func test_blankTree_isRefusedWhileDecoding_beforeItIsPadded() throws {
        let member = try F.member("far")
        let bytes = farLeafTree(member, at: 3_000_000).encoded()
        XCTAssertGreaterThan(bytes.count, 6_000_000)
        let limits = TreeLimits(maxLeaves: 2000, maxMembers: 1000)
        XCTAssertThrowsError(try RatchetTree(decoding: bytes, limits: limits)) {
            XCTAssertEqual($0 as? DecodingError, .tooManyElements(limit: 3999))
        }
        // Given decoded, the import refuses it from its count alone.
        XCTAssertThrowsTreeError(.treeTooWide(lastLeaf: 3_000_000, maxLeaves: 2000)) {
            try PublicRatchetTree(suite: F.suite, tree: try RatchetTree(decoding: bytes), limits: limits)
        }
    }

    func test_treeWithMoreMembersThanAllowed_isRefusedBeforeItIsBuilt() throws {
        let (tree, _, _) = try F.group(size: 3)
        XCTAssertThrowsTreeError(.tooManyMembers(maxMembers: 2)) {
            try PublicRatchetTree(suite: F.suite, tree: tree.ratchetTree, limits: TreeLimits(maxLeaves: 100, maxMembers: 2))
        }
        XCTAssertEqual(try PublicRatchetTree(suite: F.suite, tree: tree.ratchetTree, limits: TreeLimits(maxLeaves: 100, maxMembers: 3)),
                       tree)
    }

    /// The quadratic-tree attack's shape: an unmerged_leaves list far longer than the leaves below
    /// its node. The decoder refuses it past the bound; imported without one, validation refuses it
    /// from its length before reading an entry.
    func test_unmergedLeavesLongerThanTheLeavesBelow_areRefused() throws {
        let (tree, _, _) = try F.group(size: 2)
        guard case .parent(var parent)? = tree.ratchetTree.nodes[1] else { return XCTFail("node 1 is blank") }
        parent.unmergedLeaves = Array(0..<100_000)
        let wire = try F.replacing(tree, node: 1, with: .parent(parent)).ratchetTree
        XCTAssertThrowsError(try RatchetTree(decoding: wire.encoded(), limits: TreeLimits(maxLeaves: 4))) {
            XCTAssertEqual($0 as? DecodingError, .tooManyElements(limit: 7))
        }
        let imported = try PublicRatchetTree(suite: F.suite, tree: wire)
        XCTAssertThrowsTreeError(.tooManyUnmergedLeaves(node: 1)) {
            try imported.validate(groupID: F.groupID)
        }
    }

    /// A valid GroupInfo of a one-member group whose leaf sits at `leaf`: the RFC allows it, the
    /// service's limits do not.
    func farLeafGroupInfo(at leaf: UInt32) throws -> GroupInfo {
        let bundle = try GroupFixtures.keyPackage("far", suite: F.suite)
        let wire = RatchetTree(nodes: [Node?](repeating: nil, count: 2 * Int(leaf)) + [.leaf(bundle.keyPackage.leafNode)])
        let tree = try PublicRatchetTree(suite: F.suite, tree: wire)
        let context = GroupContext(cipherSuite: F.suite.rawValue, groupID: F.groupID, epoch: 3, treeHash: tree.treeHash,
                                   confirmedTranscriptHash: [UInt8](repeating: 5, count: 32))
        var groupInfo = GroupInfo(groupContext: context, extensions: [.ratchetTree(wire)],
                                  confirmationTag: [UInt8](repeating: 6, count: F.suite.nh), signer: leaf)
        try groupInfo.sign(with: bundle.signingKey, suite: F.suite)
        return groupInfo
    }

    func test_validFarLeafGroupInfo_isAcceptedWithoutLimits_andRefusedWithThem() throws {
        let groupInfo = try farLeafGroupInfo(at: 40)
        let group = try PublicGroup(groupInfo: groupInfo)
        XCTAssertEqual(group.members.map(\.leafIndex), [40])
        XCTAssertThrowsError(try PublicGroup(groupInfo: groupInfo, limits: TreeLimits(maxLeaves: 40))) {
            XCTAssertEqual($0 as? GroupError, .decoding(.tooManyElements(limit: 79)))
        }
        // The same tree given beside the GroupInfo (createConvo's ratchetTree) is refused by the import.
        let wire = try groupInfo.extensions.first(ofType: .ratchetTree)!.decodeRatchetTree()
        XCTAssertThrowsError(try PublicGroup(groupInfo: groupInfo, ratchetTree: wire, limits: TreeLimits(maxLeaves: 40))) {
            XCTAssertEqual($0 as? GroupError, .tree(.treeTooWide(lastLeaf: 40, maxLeaves: 40)))
        }
        XCTAssertEqual(try PublicGroup(groupInfo: groupInfo, limits: TreeLimits(maxLeaves: 41)).members.map(\.leafIndex), [40])
    }

    /// A stored state is rebuilt on every call: one wider than the limits is refused before it is.
    func test_serializedStateBeyondTheLimits_isRefusedBeforeItIsRebuilt() throws {
        let stored = try PublicGroup(groupInfo: try farLeafGroupInfo(at: 40)).serialize()
        XCTAssertThrowsError(try PublicGroup(serialized: stored, limits: TreeLimits(maxLeaves: 40))) {
            XCTAssertEqual($0 as? GroupError, .decoding(.tooManyElements(limit: 79)))
        }
        XCTAssertEqual(try PublicGroup(serialized: stored, limits: TreeLimits(maxLeaves: 41)).tree.leafCount, 64)
    }

    // MARK: Recorded proposals

    /// A proposal verified once is restored from what was kept of it (ref, sender, proposal) and can
    /// be committed by reference; restoring it again adds nothing.
    func test_restoredProposal_isCoveredByACommit_andRestoredOnce() throws {
        var (alice, bob, _, observer) = try GroupFixtures.threeMembers(suite: F.suite)
        var restored = try PublicGroup(serialized: observer.serialize())
        let proposal = try GroupFixtures.publicMessage(try bob.proposeSelfRemove())
        let recorded = try observer.recordProposal(proposal)
        _ = try alice.process(MLSMessage(body: .publicMessage(proposal)))

        XCTAssertTrue(restored.pendingProposals.isEmpty)
        restored.restoreRecordedProposals([recorded, recorded])
        XCTAssertEqual(restored.pendingProposals, [recorded])

        let output = try alice.commit()
        let next = try restored.validateAndApply(commit: try GroupFixtures.publicMessage(output.commit))
        XCTAssertEqual(next.lastCommit?.removed.map(\.leafIndex), [1])
    }
}
