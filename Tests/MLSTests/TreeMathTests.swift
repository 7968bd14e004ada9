import MLS
import XCTest

final class TreeMathTests: XCTestCase {
    func test_eightLeafTree_matchesRFC9420Figure() {
        // RFC 9420 Appendix C: an 8-leaf tree has root 7; leaf 0's direct path is 1, 3, 7.
        XCTAssertEqual(TreeMath.nodeWidth(leafCount: 8), 15)
        XCTAssertEqual(TreeMath.root(leafCount: 8), 7)
        XCTAssertEqual(TreeMath.directPath(0, leafCount: 8), [1, 3, 7])
        XCTAssertEqual(TreeMath.copath(0, leafCount: 8), [2, 5, 11])
        XCTAssertEqual(TreeMath.directPath(7, leafCount: 8), [])
        XCTAssertEqual(TreeMath.copath(7, leafCount: 8), [])
        XCTAssertEqual(TreeMath.left(7), 3)
        XCTAssertEqual(TreeMath.right(7), 11)
        XCTAssertEqual(TreeMath.parent(11, leafCount: 8), 7)
        XCTAssertEqual(TreeMath.sibling(3, leafCount: 8), 11)
        XCTAssertEqual(TreeMath.level(7), 3)
        XCTAssertEqual(TreeMath.commonAncestor(0, 6), 3)
        XCTAssertEqual(TreeMath.commonAncestor(2, 12), 7)
        XCTAssertEqual(TreeMath.commonAncestor(5, 5), 5)
        XCTAssertEqual(TreeMath.commonAncestor(4, 5), 5)
        XCTAssertTrue(TreeMath.isAncestor(3, of: 4))
        XCTAssertFalse(TreeMath.isAncestor(3, of: 8))
        XCTAssertEqual(TreeMath.leaves(under: 3), 0..<4)
        XCTAssertEqual(TreeMath.leaves(under: 10), 5..<6)
        XCTAssertEqual(TreeMath.leafIndex(node: 10), 5)
        XCTAssertNil(TreeMath.leafIndex(node: 9))
    }

    func test_outOfRangeInput_returnsNilWithoutTrapping() {
        XCTAssertNil(TreeMath.parent(15, leafCount: 8))
        XCTAssertNil(TreeMath.parent(7, leafCount: 8), "root has no parent")
        XCTAssertNil(TreeMath.sibling(7, leafCount: 8))
        XCTAssertNil(TreeMath.left(4))
        XCTAssertNil(TreeMath.right(0))
        XCTAssertNil(TreeMath.left(UInt32.max))
        XCTAssertNil(TreeMath.right(UInt32.max))
        XCTAssertNil(TreeMath.root(leafCount: 0))
        XCTAssertNil(TreeMath.root(leafCount: 6), "not a power of two")
        XCTAssertNil(TreeMath.nodeWidth(leafCount: UInt32.max))
        XCTAssertNil(TreeMath.directPath(UInt32.max, leafCount: 8))
        XCTAssertNil(TreeMath.copath(100, leafCount: 4))
        XCTAssertNil(TreeMath.parent(0, leafCount: 0))
        XCTAssertNil(TreeMath.nodeIndex(leaf: UInt32.max))
        XCTAssertEqual(TreeMath.root(leafCount: TreeMath.maxLeafCount), (1 << 31) - 1)
        XCTAssertEqual(TreeMath.directPath(0, leafCount: TreeMath.maxLeafCount)?.count, 31)
        _ = TreeMath.commonAncestor(UInt32.max, 0)
    }

    func test_singleLeafTree() {
        XCTAssertEqual(TreeMath.root(leafCount: 1), 0)
        XCTAssertNil(TreeMath.parent(0, leafCount: 1))
        XCTAssertEqual(TreeMath.directPath(0, leafCount: 1), [])
    }
}
