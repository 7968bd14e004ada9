import MLS
import XCTest

final class TreeHashTests: XCTestCase {
    typealias F = TreeFixtures

    func test_singleLeafHash_isHashOfLeafNodeHashInput() throws {
        let member = try F.member("solo")
        let tree = PublicRatchetTree(suite: F.suite, creator: member.leafNode)
        var writer = TLSWriter()
        writer.write(UInt8(1))  // node_type leaf
        writer.write(UInt32(0))  // leaf_index
        writer.write(UInt8(1))  // optional present
        writer.write(member.leafNode)
        XCTAssertEqual(tree.treeHash, F.suite.hash(writer.bytes))
    }

    func test_parentHash_coversChildrenHashes() throws {
        let (tree, _, _) = try F.group(size: 2)
        var writer = TLSWriter()
        writer.write(UInt8(2))
        writer.writeOptional(tree.parentNode(at: 1))
        writer.writeOpaque(tree.treeHash(of: 0))
        writer.writeOpaque(tree.treeHash(of: 2))
        XCTAssertEqual(tree.treeHash, F.suite.hash(writer.bytes))
    }

    func test_blankLeavesHashDifferentlyByIndex() throws {
        var (tree, _, _) = try F.group(size: 4)
        try tree.remove(leaf: 1)
        try tree.remove(leaf: 2)
        XCTAssertNotEqual(tree.treeHash(of: 2), tree.treeHash(of: 4))
    }

    /// The incrementally maintained hashes equal a fresh import's after every kind of change.
    func test_incrementalHashesMatchFreshImport() throws {
        var (tree, members, _) = try F.group(size: 7)
        func assertFresh(_ step: String) throws {
            let fresh = try PublicRatchetTree(suite: F.suite, tree: tree.ratchetTree)
            for x in 0..<tree.nodeWidth {
                XCTAssertEqual(tree.treeHash(of: x), fresh.treeHash(of: x), "\(step): node \(x)")
            }
        }
        try assertFresh("group")
        tree.add(try F.member("eighth").leafNode)
        try assertFresh("add")
        tree.add(try F.member("ninth").leafNode)
        try assertFresh("add with extension")
        try tree.remove(leaf: 3)
        try assertFresh("remove")
        try tree.remove(leaf: 8)
        try assertFresh("remove with truncation")
        _ = try tree.generateUpdatePath(sender: 5, leafNode: members[5].leafNode, signatureKey: members[5].signer, groupID: F.groupID)
        try assertFresh("path")
    }

    func test_changingOneLeafChangesRootButNotOtherSubtrees() throws {
        var (tree, members, _) = try F.group(size: 4)
        let before = (0..<tree.nodeWidth).map { tree.treeHash(of: $0) }
        var updated = members[3].leafNode
        updated.encryptionKey = try F.suite.generateHPKEKeyPair().publicKey
        updated.leafNodeSource = .update
        try tree.update(leaf: 3, with: try F.resign(updated, at: 3, with: members[3].signer))
        XCTAssertEqual(tree.treeHash(of: 0), before[0])
        XCTAssertEqual(tree.treeHash(of: 1), before[1])
        XCTAssertNotEqual(tree.treeHash(of: 6), before[6])
        XCTAssertNotEqual(tree.treeHash, before[3])
    }
}
