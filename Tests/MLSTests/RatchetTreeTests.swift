import MLS
import XCTest

final class RatchetTreeTests: XCTestCase {
    typealias F = TreeFixtures

    func test_add_extendsToTheRightByDoubling() throws {
        let members = try (0..<5).map { try F.member("m\($0)") }
        var tree = PublicRatchetTree(suite: F.suite, creator: members[0].leafNode)
        XCTAssertEqual(tree.leafCount, 1)
        XCTAssertEqual(tree.add(members[1].leafNode), 1)
        XCTAssertEqual(tree.leafCount, 2)
        XCTAssertEqual(tree.add(members[2].leafNode), 2)
        XCTAssertEqual(tree.leafCount, 4)
        XCTAssertEqual(tree.nodeWidth, 7)
        XCTAssertEqual(tree.add(members[3].leafNode), 3)
        XCTAssertEqual(tree.leafCount, 4)
        XCTAssertEqual(tree.add(members[4].leafNode), 4)
        XCTAssertEqual(tree.leafCount, 8)
        XCTAssertEqual(tree.root, 7)
        // The wire form drops the trailing blanks after leaf 4 (node 8).
        XCTAssertEqual(tree.ratchetTree.nodes.count, 9)
        XCTAssertEqual(tree.members.map(\.leaf), [0, 1, 2, 3, 4])
    }

    func test_add_fillsLeftmostBlankLeafFirst() throws {
        var (tree, _, _) = try F.group(size: 4)
        try tree.remove(leaf: 1)
        let newcomer = try F.member("newcomer")
        XCTAssertEqual(tree.nextAddIndex, 1)
        XCTAssertEqual(tree.add(newcomer.leafNode), 1)
        XCTAssertEqual(tree.nextAddIndex, 4, "a full tree extends on the next add")
        XCTAssertEqual(tree.leafCount, 4)
    }

    func test_add_marksLeafUnmergedInNonBlankParentsOnly() throws {
        var (tree, _, _) = try F.group(size: 3)
        // Leaf 0 committed: nodes 1 and 3 are set, node 5 (above the blank leaf 3) is not.
        XCTAssertNotNil(tree.parentNode(at: 1))
        XCTAssertNotNil(tree.parentNode(at: 3))
        XCTAssertNil(tree.node(at: 5))
        let leaf = tree.add(try F.member("fourth").leafNode)
        XCTAssertEqual(leaf, 3)
        XCTAssertEqual(tree.parentNode(at: 3)?.unmergedLeaves, [3], "leaf 2 was merged by the commit")
        XCTAssertNil(tree.node(at: 5))
        XCTAssertEqual(tree.parentNode(at: 1)?.unmergedLeaves, [])
    }

    func test_resolution_includesUnmergedLeavesAndSkipsBlanks() throws {
        var (tree, _, _) = try F.group(size: 3)
        tree.add(try F.member("fourth").leafNode)
        XCTAssertEqual(tree.resolution(of: 3), [3, 6])
        XCTAssertEqual(tree.resolution(of: 5), [4, 6])
        tree.add(try F.member("fifth").leafNode)
        // The extension's new root is blank, so its resolution is that of its children.
        XCTAssertEqual(tree.resolution(of: 7), [3, 6, 8])
        XCTAssertEqual(tree.resolution(of: 11), [8])
        XCTAssertEqual(tree.resolution(of: 1), [1])
        try tree.remove(leaf: 2)
        // Removing leaf 2 blanks node 4 and its direct path 5 and 3.
        XCTAssertEqual(tree.resolution(of: 3), [1, 6])
        XCTAssertEqual(tree.resolution(of: 7), [1, 6, 8])
        XCTAssertEqual(tree.resolution(of: 4), [])
        XCTAssertTrue(tree.isSubtreeBlank(4))
    }

    func test_filteredDirectPath_dropsNodesWhoseCopathIsBlank() throws {
        var (tree, _, _) = try F.group(size: 4)
        XCTAssertEqual(tree.filteredDirectPath(ofLeaf: 0).map(\.node), [1, 3])
        try tree.remove(leaf: 1)
        XCTAssertEqual(tree.filteredDirectPath(ofLeaf: 0).map(\.node), [3])
        XCTAssertEqual(tree.filteredDirectPath(ofLeaf: 0).map(\.copathChild), [5])
        XCTAssertEqual(tree.filteredDirectPath(ofLeaf: 2).map(\.node), [5, 3])
    }

    func test_remove_truncatesTrailingBlankSubtrees() throws {
        var (tree, _, _) = try F.group(size: 5)
        XCTAssertEqual(tree.leafCount, 8)
        try tree.remove(leaf: 4)
        XCTAssertEqual(tree.leafCount, 4)
        XCTAssertEqual(tree.nodeWidth, 7)
        try tree.remove(leaf: 2)
        XCTAssertEqual(tree.leafCount, 4, "leaf 3 still holds the right half")
        try tree.remove(leaf: 3)
        XCTAssertEqual(tree.leafCount, 2)
        try tree.remove(leaf: 1)
        XCTAssertEqual(tree.leafCount, 1)
        XCTAssertEqual(tree.members.map(\.leaf), [0])
    }

    func test_remove_middleLeafKeepsWidthAndBlanksDirectPath() throws {
        var (tree, _, _) = try F.group(size: 4)
        try tree.remove(leaf: 1)
        XCTAssertEqual(tree.leafCount, 4)
        XCTAssertNil(tree.node(at: 2))
        XCTAssertNil(tree.node(at: 1))
        XCTAssertNil(tree.node(at: 3))
    }

    func test_remove_blankOrMissingLeafThrows() throws {
        var (tree, _, _) = try F.group(size: 4)
        try tree.remove(leaf: 2)
        XCTAssertThrowsTreeError(.blankLeaf(2)) { try tree.remove(leaf: 2) }
        XCTAssertThrowsTreeError(.leafIndexOutOfRange(9)) { try tree.remove(leaf: 9) }
        XCTAssertThrowsTreeError(.blankLeaf(2)) {
            try tree.apply(.remove(removed: 2), sender: 0)
        }
    }

    func test_update_replacesLeafAndBlanksDirectPath() throws {
        var (tree, members, _) = try F.group(size: 4)
        var updated = members[0].leafNode
        updated.encryptionKey = try F.suite.generateHPKEKeyPair().publicKey
        updated.leafNodeSource = .update
        updated = try F.resign(updated, at: 0, with: members[0].signer)
        try tree.apply(.update(updated), sender: 0)
        XCTAssertEqual(tree.leafNode(at: 0), updated)
        XCTAssertNil(tree.node(at: 1))
        XCTAssertNil(tree.node(at: 3))
        try tree.remove(leaf: 2)
        XCTAssertThrowsTreeError(.blankLeaf(2)) { try tree.update(leaf: 2, with: updated) }
        XCTAssertThrowsTreeError(.leafIndexOutOfRange(5)) { try tree.update(leaf: 5, with: updated) }
    }

    func test_wireRoundTrip_isByteExact() throws {
        var (tree, _, _) = try F.group(size: 6)
        try tree.remove(leaf: 3)
        let bytes = tree.ratchetTree.encoded()
        let again = try PublicRatchetTree(suite: F.suite, tree: try RatchetTree(decoding: bytes))
        XCTAssertEqual(again.ratchetTree.encoded(), bytes)
        XCTAssertEqual(again, tree)
        XCTAssertEqual(again.treeHash, tree.treeHash)
    }

    func test_import_rejectsMalformedShapes() throws {
        let (tree, _, _) = try F.group(size: 3)
        let nodes = tree.ratchetTree.nodes
        func importing(_ nodes: [Node?]) throws -> PublicRatchetTree {
            try PublicRatchetTree(suite: F.suite, tree: RatchetTree(nodes: nodes))
        }
        XCTAssertThrowsError(try importing([])) { XCTAssertEqual($0 as? TreeError, .malformedTree("empty tree")) }
        XCTAssertThrowsError(try importing(Array(nodes.prefix(2)))) {
            XCTAssertEqual($0 as? TreeError, .malformedTree("even node count 2"))
        }
        XCTAssertThrowsError(try importing(Array(nodes.prefix(3)) + [nil, nil])) {
            XCTAssertEqual($0 as? TreeError, .malformedTree("trailing blank node"))
        }
        var swapped = nodes
        swapped[1] = nodes[0]
        XCTAssertThrowsError(try importing(swapped)) {
            XCTAssertEqual($0 as? TreeError, .malformedTree("leaf node at parent index 1"))
        }
        swapped = nodes
        swapped[2] = nodes[1]
        XCTAssertThrowsError(try importing(swapped)) {
            XCTAssertEqual($0 as? TreeError, .malformedTree("parent node at leaf index 2"))
        }
    }

    func test_import_truncatedWireTreeIsPaddedToFullWidth() throws {
        let (tree, _, _) = try F.group(size: 3)
        XCTAssertEqual(tree.ratchetTree.nodes.count, 5)
        let imported = try PublicRatchetTree(suite: F.suite, tree: tree.ratchetTree)
        XCTAssertEqual(imported.leafCount, 4)
        XCTAssertEqual(imported.nodeWidth, 7)
        XCTAssertNil(imported.node(at: 6))
    }

    func test_truncatedDecodedBytesFailToDecode() throws {
        let (tree, _, _) = try F.group(size: 3)
        let bytes = tree.ratchetTree.encoded()
        XCTAssertThrowsError(try RatchetTree(decoding: Array(bytes.dropLast(5))))
        XCTAssertThrowsError(try RatchetTree(decoding: bytes + [0]))
    }
}
