import MLS
import XCTest

/// A member of a test group: real keys, a signed key_package leaf, and its private tree state.
struct TreeTestMember {
    let name: String
    let signer: SignaturePrivateKey
    let encryption: HPKEKeyPair
    let leafNode: LeafNode
}

/// Builds real, signed trees for the ratchet-tree tests (suite 1 unless told otherwise).
enum TreeFixtures {
    static let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
    static let groupID = Array("tree-test-group".utf8)

    static func member(_ name: String, suite: CipherSuite = suite, credentials: [CredentialType] = [.basic]) throws -> TreeTestMember {
        let signer = try suite.signatureScheme.generatePrivateKey()
        let encryption = try suite.generateHPKEKeyPair()
        var leaf = LeafNode(
            encryptionKey: encryption.publicKey, signatureKey: signer.publicKey.bytes,
            credential: .basic(identity: Array(name.utf8)),
            capabilities: Capabilities(cipherSuites: [suite.rawValue], credentials: credentials),
            leafNodeSource: .keyPackage(Lifetime(notBefore: 0, notAfter: .max)))
        leaf.signature = try suite.signWithLabel(signer, label: "LeafNodeTBS", content: leaf.tbs().encoded())
        return TreeTestMember(name: name, signer: signer, encryption: encryption, leafNode: leaf)
    }

    /// Re-signs `leaf` as it would sit at `index` (needed after editing an update or commit leaf).
    static func resign(_ leaf: LeafNode, at index: UInt32, with signer: SignaturePrivateKey, suite: CipherSuite = suite) throws -> LeafNode {
        var leaf = leaf
        leaf.signature = try suite.signWithLabel(
            signer, label: "LeafNodeTBS", content: leaf.tbs(groupID: groupID, leafIndex: index).encoded())
        return leaf
    }

    static func context(_ tree: PublicRatchetTree, epoch: UInt64 = 1) -> [UInt8] {
        GroupContext(cipherSuite: tree.suite.rawValue, groupID: groupID, epoch: epoch, treeHash: tree.treeHash,
                     confirmedTranscriptHash: [UInt8](repeating: 7, count: 32)).encoded()
    }

    /// A group of `size` members: member 0 creates it, adds everyone, then commits with a path so the
    /// parents on its direct path are set; joiners get their path secrets as a Welcome would give them.
    static func group(size: Int, suite: CipherSuite = suite) throws
        -> (tree: PublicRatchetTree, members: [TreeTestMember], states: [TreePrivateState])
    {
        let members = try (0..<size).map { try member("member-\($0)", suite: suite) }
        var tree = PublicRatchetTree(suite: suite, creator: members[0].leafNode)
        for m in members.dropFirst() { tree.add(m.leafNode) }
        var states: [TreePrivateState] = []
        guard size > 1 else {
            return (tree, members, [TreePrivateState(suite: suite, leafIndex: 0, leafKeyPair: members[0].encryption)])
        }
        let committer = try tree.generateUpdatePath(
            sender: 0, leafNode: members[0].leafNode, signatureKey: members[0].signer, groupID: groupID)
        states.append(committer.privateState)
        for (index, m) in members.enumerated().dropFirst() {
            var state = TreePrivateState(suite: suite, leafIndex: UInt32(index), leafKeyPair: m.encryption)
            if let secret = committer.pathSecret(forJoiner: UInt32(index)) {
                try state.applyPathSecret(secret.pathSecret, at: secret.node, tree: tree)
            }
            states.append(state)
        }
        return (tree, members, states)
    }

    /// The tree with node `x` replaced, re-imported from its wire form (so hashes are recomputed).
    static func replacing(_ tree: PublicRatchetTree, node x: UInt32, with node: Node?) throws -> PublicRatchetTree {
        var wire = tree.ratchetTree
        while wire.nodes.count <= Int(x) { wire.nodes.append(nil) }
        wire.nodes[Int(x)] = node
        return try PublicRatchetTree(suite: tree.suite, tree: wire)
    }
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertThrowsTreeError<T>(
    _ expected: TreeError, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
) {
    do {
        _ = try body()
        XCTFail("expected \(expected), nothing thrown", file: file, line: line)
    } catch let error as TreeError {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}
