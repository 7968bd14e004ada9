import MLS
import XCTest

final class ParentHashTests: XCTestCase {
    typealias F = TreeFixtures

    func test_committedTreeHasValidChains() throws {
        var (tree, members, _) = try F.group(size: 6)
        try tree.verifyParentHashes()
        // A second commit from the other side, with unmerged leaves in play.
        tree.add(try F.member("late").leafNode)
        _ = try tree.generateUpdatePath(sender: 5, leafNode: members[5].leafNode, signatureKey: members[5].signer, groupID: F.groupID)
        try tree.verifyParentHashes()
        XCTAssertNoThrow(try tree.validate(groupID: F.groupID, expectedTreeHash: tree.treeHash))
    }

    func test_leafParentHashEqualsFirstPathNodeHash() throws {
        let (tree, _, _) = try F.group(size: 4)
        guard case .commit(let parentHash) = tree.leafNode(at: 0)?.leafNodeSource else {
            return XCTFail("leaf 0 should come from a commit")
        }
        XCTAssertEqual(parentHash, tree.parentHash(of: 1, copathChild: 2))
        XCTAssertEqual(tree.parentNode(at: 1)?.parentHash, tree.parentHash(of: 3, copathChild: 5))
        XCTAssertEqual(tree.parentNode(at: 3)?.parentHash, [])
    }

    func test_tamperedParentHashIsRejected() throws {
        let (tree, _, _) = try F.group(size: 4)
        var parent = try XCTUnwrap(tree.parentNode(at: 1))
        parent.parentHash[0] ^= 1
        let tampered = try F.replacing(tree, node: 1, with: .parent(parent))
        XCTAssertThrowsTreeError(.invalidParentHash(node: 1)) { try tampered.verifyParentHashes() }
    }

    func test_tamperedParentKeyLeavesThatParentUnlinked() throws {
        let (tree, _, _) = try F.group(size: 4)
        var parent = try XCTUnwrap(tree.parentNode(at: 3))
        parent.encryptionKey = try F.suite.generateHPKEKeyPair().publicKey
        let tampered = try F.replacing(tree, node: 3, with: .parent(parent))
        XCTAssertThrowsTreeError(.invalidParentHash(node: 3)) { try tampered.verifyParentHashes() }
    }

    func test_unmergedLeafMissingFromParentBreaksTheChain() throws {
        var (tree, _, _) = try F.group(size: 3)
        tree.add(try F.member("fourth").leafNode)
        try tree.verifyParentHashes()
        var parent = try XCTUnwrap(tree.parentNode(at: 3))
        parent.unmergedLeaves = []
        let tampered = try F.replacing(tree, node: 3, with: .parent(parent))
        XCTAssertThrowsTreeError(.invalidParentHash(node: 3)) { try tampered.verifyParentHashes() }
    }

    func test_parentWithoutAnyLinkedDescendantIsRejected() throws {
        let (tree, _, _) = try F.group(size: 4)
        // A parent node inserted over leaves 2 and 3 that no leaf links to.
        let orphan = ParentNode(encryptionKey: try F.suite.generateHPKEKeyPair().publicKey)
        let tampered = try F.replacing(tree, node: 5, with: .parent(orphan))
        XCTAssertThrowsError(try tampered.verifyParentHashes()) {
            guard case .invalidParentHash = $0 as? TreeError else { return XCTFail("\($0)") }
        }
    }
}
