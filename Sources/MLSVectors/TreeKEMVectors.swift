import MLS

/// treekem.json: private-state consistency, processing every UpdatePath (parent hashes, decrypted
/// path secrets, commit secret, tree hash after the merge), and a fresh UpdatePath from each sender
/// that every other member decrypts to the same commit secret (RFC 9420 §7.4–7.6).
public enum TreeKEMVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        let groupID = try VectorJSON.hex(testCase, "group_id")
        let epoch = UInt64(try VectorJSON.int(testCase, "epoch"))
        let confirmed = try VectorJSON.hex(testCase, "confirmed_transcript_hash")
        let tree = try PublicRatchetTree(suite: suite, tree: try RatchetTree(decoding: try VectorJSON.hex(testCase, "ratchet_tree")))
        try tree.validate(groupID: groupID)

        func context(_ treeHash: [UInt8]) -> [UInt8] {
            GroupContext(cipherSuite: suite.rawValue, groupID: groupID, epoch: epoch, treeHash: treeHash,
                         confirmedTranscriptHash: confirmed).encoded()
        }

        var states: [UInt32: TreePrivateState] = [:]
        var signatureKeys: [UInt32: SignaturePrivateKey] = [:]
        guard let leaves = try VectorJSON.array(testCase, "leaves_private") as? [[String: Any]] else {
            throw VectorMismatch("leaves_private is not an array of objects")
        }
        for entry in leaves {
            let leaf = UInt32(try VectorJSON.int(entry, "index"))
            var state = try TreePrivateState(
                suite: suite, leafIndex: leaf, encryptionPrivateKey: try VectorJSON.hex(entry, "encryption_priv"))
            guard let secrets = try VectorJSON.array(entry, "path_secrets") as? [[String: Any]] else {
                throw VectorMismatch("path_secrets of leaf \(leaf) is not an array of objects")
            }
            for secret in secrets {
                try state.setPathSecret(try VectorJSON.hex(secret, "path_secret"), at: UInt32(try VectorJSON.int(secret, "node")))
            }
            try state.checkConsistency(with: tree)
            states[leaf] = state
            signatureKeys[leaf] = try SignaturePrivateKey(
                scheme: suite.signatureScheme, bytes: try VectorJSON.hex(entry, "signature_priv"))
        }
        let receivers = tree.members.map(\.leaf)
        guard receivers.allSatisfy({ states[$0] != nil }) else { throw VectorMismatch("a member has no private state") }

        guard let updates = try VectorJSON.array(testCase, "update_paths") as? [[String: Any]] else {
            throw VectorMismatch("update_paths is not an array of objects")
        }
        for update in updates {
            let sender = UInt32(try VectorJSON.int(update, "sender"))
            let path = try UpdatePath(decoding: try VectorJSON.hex(update, "update_path"))
            var merged = tree
            try merged.mergeUpdatePath(path, sender: sender, groupID: groupID)
            try VectorJSON.expect(merged.treeHash, try VectorJSON.hex(update, "tree_hash_after"), "sender \(sender) tree_hash_after")
            try merged.verifyParentHashes()
            let commitSecret = try VectorJSON.hex(update, "commit_secret")
            let expectedSecrets = try VectorJSON.array(update, "path_secrets")
            for receiver in receivers where receiver != sender {
                var state = states[receiver]!
                let received = try state.decrypt(path, sender: sender, tree: merged, groupContext: context(merged.treeHash))
                guard let hex = expectedSecrets[Int(receiver)] as? String else {
                    throw VectorMismatch("no path secret for leaf \(receiver)")
                }
                try VectorJSON.expect(received.pathSecret, try VectorJSON.bytes(fromHex: hex), "sender \(sender) leaf \(receiver) path secret")
                try VectorJSON.expect(received.commitSecret, commitSecret, "sender \(sender) leaf \(receiver) commit secret")
                try state.checkConsistency(with: merged)
            }

            guard let signer = signatureKeys[sender], let oldLeaf = tree.leafNode(at: sender) else {
                throw VectorMismatch("no signature key for sender \(sender)")
            }
            var committerTree = tree
            let committer = try committerTree.generateUpdatePath(
                sender: sender, leafNode: oldLeaf, signatureKey: signer, groupID: groupID)
            let fresh = try committerTree.encryptUpdatePath(committer, groupContext: context(committerTree.treeHash))
            try committer.privateState.checkConsistency(with: committerTree)
            try committerTree.verifyParentHashes()
            var receiverTree = tree
            try receiverTree.mergeUpdatePath(fresh, sender: sender, groupID: groupID)
            try VectorJSON.expect(receiverTree.treeHash, committerTree.treeHash, "sender \(sender) fresh path tree hash")
            for receiver in receivers where receiver != sender {
                var state = states[receiver]!
                let received = try state.decrypt(fresh, sender: sender, tree: receiverTree, groupContext: context(receiverTree.treeHash))
                try VectorJSON.expect(received.commitSecret, committer.commitSecret, "sender \(sender) leaf \(receiver) fresh commit secret")
            }
        }
    }
}
