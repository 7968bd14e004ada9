import MLS
import XCTest

final class TreeKEMTests: XCTestCase {
    typealias F = TreeFixtures

    /// Every other member decrypts a fresh path to the committer's commit secret, and the merged
    /// trees agree.
    func test_freshPathReachesEveryMember() throws {
        let (tree, members, states) = try F.group(size: 7)
        for state in states { XCTAssertNoThrow(try state.checkConsistency(with: tree)) }
        var committerTree = tree
        let committer = try committerTree.generateUpdatePath(
            sender: 3, leafNode: members[3].leafNode, signatureKey: members[3].signer, groupID: F.groupID)
        let context = F.context(committerTree)
        let path = try committerTree.encryptUpdatePath(committer, groupContext: context)
        XCTAssertEqual(path.nodes.count, 3)
        XCTAssertNoThrow(try committerTree.validate(groupID: F.groupID))

        var receiverTree = tree
        try receiverTree.mergeUpdatePath(path, sender: 3, groupID: F.groupID)
        XCTAssertEqual(receiverTree, committerTree)
        XCTAssertEqual(receiverTree.treeHash, committerTree.treeHash)
        for (index, var state) in states.enumerated() where index != 3 {
            let received = try state.decrypt(path, sender: 3, tree: receiverTree, groupContext: context)
            XCTAssertEqual(received.commitSecret, committer.commitSecret, "leaf \(index)")
            XCTAssertNoThrow(try state.checkConsistency(with: receiverTree))
            XCTAssertNotNil(state.keyPair(at: receiverTree.root))
        }
    }

    func test_commitSecretChainFollowsRFCDerivation() throws {
        let (tree, members, _) = try F.group(size: 4)
        var committerTree = tree
        let first = [UInt8](repeating: 0x42, count: F.suite.nh)
        let committer = try committerTree.generateUpdatePath(
            sender: 1, leafNode: members[1].leafNode, signatureKey: members[1].signer, groupID: F.groupID,
            firstPathSecret: first)
        let second = try F.suite.deriveSecret(secret: first, label: "path")
        XCTAssertEqual(committer.path.map(\.node), [1, 3])
        XCTAssertEqual(committer.path.map(\.pathSecret), [first, second])
        XCTAssertEqual(committer.commitSecret, try F.suite.deriveSecret(secret: second, label: "path"))
        let nodeKey = try F.suite.deriveKeyPair(try F.suite.deriveSecret(secret: first, label: "node"))
        XCTAssertEqual(committerTree.parentNode(at: 1)?.encryptionKey, nodeKey.publicKey)
    }

    func test_addedLeavesAreExcludedAndJoinThroughWelcomeSecret() throws {
        var (tree, members, states) = try F.group(size: 3)
        let joiner = try F.member("joiner")
        let joinerLeaf = tree.add(joiner.leafNode)
        let committer = try tree.generateUpdatePath(
            sender: 0, leafNode: members[0].leafNode, signatureKey: members[0].signer, groupID: F.groupID)
        let context = F.context(tree)
        let path = try tree.encryptUpdatePath(committer, groupContext: context, excluding: [joinerLeaf])
        // Node 3's copath child 5 resolves to leaves 2 and 3; leaf 3 is new, so one ciphertext.
        XCTAssertEqual(path.nodes.map(\.encryptedPathSecret.count), [1, 1])

        var state2 = states[2]
        let received = try state2.decrypt(path, sender: 0, tree: tree, groupContext: context, excluding: [joinerLeaf])
        XCTAssertEqual(received.commitSecret, committer.commitSecret)

        let secret = try XCTUnwrap(committer.pathSecret(forJoiner: joinerLeaf))
        XCTAssertEqual(secret.node, 3)
        var joinerState = TreePrivateState(suite: F.suite, leafIndex: joinerLeaf, leafKeyPair: joiner.encryption)
        let joinerCommit = try joinerState.applyPathSecret(secret.pathSecret, at: secret.node, tree: tree)
        XCTAssertEqual(joinerCommit, committer.commitSecret)
        XCTAssertNoThrow(try joinerState.checkConsistency(with: tree))

        // Without the exclusion the receiver's ciphertext count no longer matches.
        var fresh2 = states[2]
        XCTAssertThrowsTreeError(.ciphertextCountMismatch(node: 3)) {
            try fresh2.decrypt(path, sender: 0, tree: tree, groupContext: context)
        }
    }

    func test_wrongNumberOfPathNodesIsRejected() throws {
        let (tree, members, states) = try F.group(size: 4)
        var committerTree = tree
        let committer = try committerTree.generateUpdatePath(
            sender: 2, leafNode: members[2].leafNode, signatureKey: members[2].signer, groupID: F.groupID)
        var path = try committerTree.encryptUpdatePath(committer, groupContext: F.context(committerTree))
        path.nodes.removeLast()
        var receiverTree = tree
        XCTAssertThrowsTreeError(.pathLengthMismatch(expected: 2, actual: 1)) {
            try receiverTree.mergeUpdatePath(path, sender: 2, groupID: F.groupID)
        }
        XCTAssertEqual(receiverTree, tree, "a rejected path leaves the tree unchanged")
        var state = states[0]
        XCTAssertThrowsTreeError(.pathLengthMismatch(expected: 2, actual: 1)) {
            try state.decrypt(path, sender: 2, tree: committerTree, groupContext: F.context(committerTree))
        }
    }

    func test_undecryptablePathSecretIsRejected() throws {
        let (tree, members, states) = try F.group(size: 4)
        var committerTree = tree
        let committer = try committerTree.generateUpdatePath(
            sender: 0, leafNode: members[0].leafNode, signatureKey: members[0].signer, groupID: F.groupID)
        let context = F.context(committerTree)
        var path = try committerTree.encryptUpdatePath(committer, groupContext: context)
        var state = states[1]
        // A wrong GroupContext makes HPKE fail.
        XCTAssertThrowsTreeError(.pathSecretDecryptionFailed) {
            try state.decrypt(path, sender: 0, tree: committerTree, groupContext: context + [0])
        }
        path.nodes[0].encryptedPathSecret[0].ciphertext[0] ^= 1
        XCTAssertThrowsTreeError(.pathSecretDecryptionFailed) {
            try state.decrypt(path, sender: 0, tree: committerTree, groupContext: context)
        }
        XCTAssertEqual(state.keys.count, states[1].keys.count, "a failed decryption leaves the state unchanged")
    }

    func test_recipientWithoutKeysCannotDecrypt() throws {
        let (tree, members, _) = try F.group(size: 4)
        var committerTree = tree
        let committer = try committerTree.generateUpdatePath(
            sender: 0, leafNode: members[0].leafNode, signatureKey: members[0].signer, groupID: F.groupID)
        let context = F.context(committerTree)
        let path = try committerTree.encryptUpdatePath(committer, groupContext: context)
        var stranger = TreePrivateState(suite: F.suite, leafIndex: 2, leafKeyPair: try F.suite.generateHPKEKeyPair())
        XCTAssertThrowsTreeError(.noDecryptionKey) {
            try stranger.decrypt(path, sender: 0, tree: committerTree, groupContext: context)
        }
    }

    func test_pathKeyNotMatchingSecretIsRejected() throws {
        let (tree, members, states) = try F.group(size: 4)
        var committerTree = tree
        let committer = try committerTree.generateUpdatePath(
            sender: 0, leafNode: members[0].leafNode, signatureKey: members[0].signer, groupID: F.groupID)
        let context = F.context(committerTree)
        var path = try committerTree.encryptUpdatePath(committer, groupContext: context)
        path.nodes[1].encryptionKey = try F.suite.generateHPKEKeyPair().publicKey
        // The public merge catches it through the leaf's parent hash...
        var receiverTree = tree
        XCTAssertThrowsTreeError(.invalidParentHash(node: 0)) {
            try receiverTree.mergeUpdatePath(path, sender: 0, groupID: F.groupID)
        }
        // ...and a member deriving the keys catches it too.
        var state = states[2]
        XCTAssertThrowsTreeError(.publicKeyMismatch(node: 3)) {
            try state.decrypt(path, sender: 0, tree: committerTree, groupContext: context)
        }
    }

    func test_pathLeafMustBeSignedCommitLeaf() throws {
        let (tree, members, _) = try F.group(size: 3)
        var committerTree = tree
        let committer = try committerTree.generateUpdatePath(
            sender: 1, leafNode: members[1].leafNode, signatureKey: members[1].signer, groupID: F.groupID)
        var path = try committerTree.encryptUpdatePath(committer, groupContext: F.context(committerTree))
        path.leafNode.signature[0] ^= 1
        var receiverTree = tree
        XCTAssertThrowsTreeError(.invalidLeafSignature(leaf: 1)) {
            try receiverTree.mergeUpdatePath(path, sender: 1, groupID: F.groupID)
        }
        path.leafNode = members[1].leafNode
        XCTAssertThrowsTreeError(.invalidLeafNodeSource(leaf: 1)) {
            try receiverTree.mergeUpdatePath(path, sender: 1, groupID: F.groupID)
        }
    }

    func test_pruneDropsKeysOfBlankedNodes() throws {
        var (tree, _, states) = try F.group(size: 4)
        var state = states[1]
        XCTAssertNotNil(state.keyPair(at: 1))
        try tree.remove(leaf: 0)
        state.prune(to: tree)
        XCTAssertNil(state.keyPair(at: 1))
        XCTAssertNil(state.keyPair(at: 3))
        XCTAssertNotNil(state.keyPair(at: 2))
        XCTAssertNoThrow(try state.checkConsistency(with: tree))
    }

    func test_largeGroupAddAndCommit() throws {
        let count = 300
        let members = try (0..<count).map { try F.member("m\($0)") }
        var tree = PublicRatchetTree(suite: F.suite, creator: members[0].leafNode)
        for m in members.dropFirst() { tree.add(m.leafNode) }
        XCTAssertEqual(tree.leafCount, 512)
        let added = Set(UInt32(1)..<UInt32(count))
        let committer = try tree.generateUpdatePath(
            sender: 0, leafNode: members[0].leafNode, signatureKey: members[0].signer, groupID: F.groupID)
        let path = try tree.encryptUpdatePath(committer, groupContext: F.context(tree), excluding: added)
        XCTAssertEqual(path.nodes.count, 9)
        XCTAssertTrue(path.nodes.allSatisfy(\.encryptedPathSecret.isEmpty), "every other member is new")
        XCTAssertNoThrow(try tree.validate(groupID: F.groupID, expectedTreeHash: tree.treeHash))
        let fresh = try PublicRatchetTree(suite: F.suite, tree: tree.ratchetTree)
        XCTAssertEqual(fresh.treeHash, tree.treeHash)
    }
}
