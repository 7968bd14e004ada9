import Foundation
@testable import MLS
import MLSVectors
import XCTest

final class TreeValidationTests: XCTestCase {
    typealias F = TreeFixtures

    func test_validGroupValidates() throws {
        var (tree, _, _) = try F.group(size: 5)
        tree.add(try F.member("unmerged").leafNode)
        XCTAssertNoThrow(try tree.validate(groupID: F.groupID, expectedTreeHash: tree.treeHash))
    }

    func test_treeHashMismatchIsRejected() throws {
        let (tree, _, _) = try F.group(size: 3)
        var wrong = tree.treeHash
        wrong[0] ^= 1
        XCTAssertThrowsTreeError(.treeHashMismatch) { try tree.validate(groupID: F.groupID, expectedTreeHash: wrong) }
    }

    func test_tamperedLeafSignatureIsRejected() throws {
        let (tree, _, _) = try F.group(size: 4)
        var leaf = try XCTUnwrap(tree.leafNode(at: 2))
        leaf.signature[5] ^= 0x10
        let tampered = try F.replacing(tree, node: 4, with: .leaf(leaf))
        XCTAssertThrowsTreeError(.invalidLeafSignature(leaf: 2)) { try tampered.validate(groupID: F.groupID) }
    }

    func test_commitLeafSignatureIsBoundToGroupAndIndex() throws {
        let (tree, _, _) = try F.group(size: 2)
        XCTAssertThrowsTreeError(.invalidLeafSignature(leaf: 0)) { try tree.validate(groupID: Array("other group".utf8)) }
    }

    func test_duplicateEncryptionKeyIsRejected() throws {
        let (tree, _, _) = try F.group(size: 4)
        let member = try F.member("copycat")
        var leaf = member.leafNode
        leaf.encryptionKey = try XCTUnwrap(tree.leafNode(at: 1)?.encryptionKey)
        leaf.signature = try F.suite.signWithLabel(member.signer, label: "LeafNodeTBS", content: leaf.tbs().encoded())
        var grown = tree
        grown.add(leaf)
        XCTAssertThrowsTreeError(.duplicateEncryptionKey(node: 8)) { try grown.validate(groupID: F.groupID) }
        XCTAssertThrowsTreeError(.duplicateEncryptionKey(node: 8)) {
            try tree.validateLeafNode(leaf, at: 4, groupID: F.groupID, source: .keyPackage)
        }
    }

    func test_parentKeyEqualToLeafKeyIsRejected() throws {
        let (tree, _, _) = try F.group(size: 4)
        let member = try F.member("copycat")
        var leaf = member.leafNode
        leaf.encryptionKey = try XCTUnwrap(tree.parentNode(at: 3)?.encryptionKey)
        leaf.signature = try F.suite.signWithLabel(member.signer, label: "LeafNodeTBS", content: leaf.tbs().encoded())
        XCTAssertThrowsTreeError(.duplicateEncryptionKey(node: 8)) {
            try tree.validateLeafNode(leaf, at: 4, groupID: F.groupID, source: .keyPackage)
        }
    }

    func test_duplicateSignatureKeyIsRejected() throws {
        let (tree, members, _) = try F.group(size: 3)
        let other = try F.member("same signer")
        var leaf = other.leafNode
        leaf.signatureKey = members[1].leafNode.signatureKey
        leaf.signature = try F.suite.signWithLabel(members[1].signer, label: "LeafNodeTBS", content: leaf.tbs().encoded())
        var grown = tree
        grown.add(leaf)
        XCTAssertThrowsTreeError(.duplicateSignatureKey(leaf: 3)) { try grown.validate(groupID: F.groupID) }
        XCTAssertThrowsTreeError(.duplicateSignatureKey(leaf: 3)) {
            try tree.validateLeafNode(leaf, at: 3, groupID: F.groupID, source: .keyPackage)
        }
    }

    func test_unsupportedCredentialTypeIsRejected() throws {
        let (tree, _, _) = try F.group(size: 3)
        let x509Only = try F.member("x509 only", credentials: [CredentialType.x509])
        XCTAssertThrowsTreeError(.unsupportedCredential(leaf: 3)) {
            try tree.validateLeafNode(x509Only.leafNode, at: 3, groupID: F.groupID, source: .keyPackage)
        }
        var grown = tree
        grown.add(x509Only.leafNode)
        XCTAssertThrowsTreeError(.unsupportedCredential(leaf: 3)) { try grown.validate(groupID: F.groupID) }
    }

    func test_requiredCapabilitiesAndLeafExtensionsAreEnforced() throws {
        let (tree, _, _) = try F.group(size: 2)
        let newcomer = try F.member("newcomer")
        let required = RequiredCapabilities(extensionTypes: [ExtensionType(rawValue: 0xFF00)])
        XCTAssertThrowsTreeError(.unsupportedCapability(leaf: 2)) {
            try tree.validateLeafNode(newcomer.leafNode, at: 2, groupID: F.groupID, source: .keyPackage,
                                      requiredCapabilities: required)
        }
        var leaf = newcomer.leafNode
        leaf.extensions = [Extension(extensionType: ExtensionType(rawValue: 0xFF01), extensionData: [1])]
        leaf.signature = try F.suite.signWithLabel(newcomer.signer, label: "LeafNodeTBS", content: leaf.tbs().encoded())
        XCTAssertThrowsTreeError(.unsupportedCapability(leaf: 2)) {
            try tree.validateLeafNode(leaf, at: 2, groupID: F.groupID, source: .keyPackage)
        }
    }

    func test_wrongSourceAndExpiredLifetimeAreRejected() throws {
        let (tree, _, _) = try F.group(size: 2)
        let newcomer = try F.member("newcomer")
        XCTAssertThrowsTreeError(.invalidLeafNodeSource(leaf: 2)) {
            try tree.validateLeafNode(newcomer.leafNode, at: 2, groupID: F.groupID, source: .commit)
        }
        var leaf = newcomer.leafNode
        leaf.leafNodeSource = .keyPackage(Lifetime(notBefore: 100, notAfter: 200))
        leaf.signature = try F.suite.signWithLabel(newcomer.signer, label: "LeafNodeTBS", content: leaf.tbs().encoded())
        XCTAssertNoThrow(try tree.validateLeafNode(leaf, at: 2, groupID: F.groupID, source: .keyPackage, now: 150))
        XCTAssertThrowsTreeError(.invalidLeafNodeSource(leaf: 2)) {
            try tree.validateLeafNode(leaf, at: 2, groupID: F.groupID, source: .keyPackage, now: 201)
        }
    }

    func test_unmergedLeafNotBelowParentIsRejected() throws {
        var (tree, _, _) = try F.group(size: 3)
        tree.add(try F.member("fourth").leafNode)
        var wire = tree.ratchetTree
        guard case .parent(var parent) = wire.nodes[1] else { return XCTFail("node 1 should be a parent") }
        parent.unmergedLeaves = [3]
        wire.nodes[1] = .parent(parent)
        let tampered = try PublicRatchetTree(suite: F.suite, tree: wire)
        XCTAssertThrowsTreeError(.invalidUnmergedLeaf(node: 1, leaf: 3)) { try tampered.validate(groupID: F.groupID) }
    }

    func test_unmergedLeafOfBlankLeafIsRejected() throws {
        var (tree, _, _) = try F.group(size: 3)
        tree.add(try F.member("fourth").leafNode)
        var wire = tree.ratchetTree
        guard case .parent(var parent) = wire.nodes[3] else { return XCTFail("node 3 should be a parent") }
        parent.unmergedLeaves = [2, 3]
        wire.nodes[3] = .parent(parent)
        wire.nodes[4] = nil
        let tampered = try PublicRatchetTree(suite: F.suite, tree: wire)
        XCTAssertThrowsTreeError(.invalidUnmergedLeaf(node: 3, leaf: 2)) { try tampered.checkUnmergedLeaves() }
    }

    func test_unmergedLeafMissingFromIntermediateParentIsRejected() throws {
        var (tree, members, _) = try F.group(size: 4)
        _ = try tree.generateUpdatePath(sender: 2, leafNode: members[2].leafNode, signatureKey: members[2].signer, groupID: F.groupID)
        XCTAssertNotNil(tree.parentNode(at: 5))
        var wire = tree.ratchetTree
        guard case .parent(var parent) = wire.nodes[3] else { return XCTFail("node 3 should be a parent") }
        parent.unmergedLeaves = [3]
        wire.nodes[3] = .parent(parent)
        let tampered = try PublicRatchetTree(suite: F.suite, tree: wire)
        XCTAssertThrowsTreeError(.invalidUnmergedLeaf(node: 3, leaf: 3)) { try tampered.checkUnmergedLeaves() }
        parent.unmergedLeaves = []
        wire.nodes[3] = .parent(parent)
        XCTAssertNoThrow(try PublicRatchetTree(suite: F.suite, tree: wire).checkUnmergedLeaves())
    }

    func test_batchOfAddedLeavesIsValidatedAtTheirFutureIndices() throws {
        var (tree, _, _) = try F.group(size: 4)
        try tree.remove(leaf: 1)
        XCTAssertEqual(tree.addIndices(count: 3), [1, 4, 5])
        let newcomers = try (0..<3).map { try F.member("new\($0)").leafNode }
        XCTAssertNoThrow(try tree.validateAddedLeafNodes(newcomers, groupID: F.groupID))
        var twin = newcomers[2]
        twin.encryptionKey = newcomers[0].encryptionKey
        XCTAssertThrowsTreeError(.invalidLeafSignature(leaf: 5)) {
            try tree.validateAddedLeafNodes([newcomers[0], newcomers[1], twin], groupID: F.groupID)
        }
        let signer = try F.member("twin signer")
        var sameKey = signer.leafNode
        sameKey.encryptionKey = newcomers[0].encryptionKey
        sameKey.signature = try F.suite.signWithLabel(signer.signer, label: "LeafNodeTBS", content: sameKey.tbs().encoded())
        XCTAssertThrowsTreeError(.duplicateEncryptionKey(node: 8)) {
            try tree.validateAddedLeafNodes([newcomers[0], sameKey], groupID: F.groupID)
        }
        let x509Only = try F.member("x509", credentials: [CredentialType.x509])
        XCTAssertThrowsTreeError(.unsupportedCredential(leaf: 1)) {
            try tree.validateAddedLeafNodes([x509Only.leafNode], groupID: F.groupID)
        }
    }

    func test_vectorTreesValidateInFull() throws {
        let data = try Data(contentsOf: CodecFixtures.vectorDirectory.appendingPathComponent("tree-validation.json"))
        let cases = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        XCTAssertEqual(cases.count, 98)
        for (index, testCase) in cases.enumerated() {
            XCTAssertNoThrow(try TreeValidationVectors.check(testCase), "case \(index)")
        }
    }
}
