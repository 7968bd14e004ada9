import Primitives

/// RFC 9420 §7.4–7.6 and §12.4.2: creating, checking and merging UpdatePaths on the public tree.
///
/// Committer: apply the proposals, `generateUpdatePath` (merges), build the provisional GroupContext
/// from `treeHash`, then `encryptUpdatePath` excluding the leaves just added. Receiver: apply the
/// proposals, `mergeUpdatePath`, build the same GroupContext, then `TreePrivateState.decrypt`.
/// A server stops after `mergeUpdatePath`.
extension PublicRatchetTree {
    /// Generates a fresh path for `sender` and merges it (RFC 9420 §7.4, §7.5): new leaf key pair,
    /// path_secret[0] at random then DeriveSecret(·, "path") upward, node keys from
    /// DeriveSecret(path_secret, "node"), parent hashes, and a new leaf with source commit signed for
    /// `groupID` and the sender's index. `leafNode` supplies the signature key, credential,
    /// capabilities and extensions. Afterwards build the provisional GroupContext from `treeHash`
    /// and call `encryptUpdatePath`. `leafKeyPair` and `firstPathSecret` exist for tests.
    public mutating func generateUpdatePath(
        sender: UInt32, leafNode: LeafNode, signatureKey: SignaturePrivateKey, groupID: [UInt8],
        leafKeyPair: HPKEKeyPair? = nil, firstPathSecret: [UInt8]? = nil
    ) throws(TreeError) -> CommitterPath {
        try checkLeaf(sender)
        guard self.leafNode(at: sender) != nil else { throw .blankLeaf(sender) }
        let leafPair: HPKEKeyPair
        if let leafKeyPair {
            leafPair = leafKeyPair
        } else {
            do { leafPair = try suite.generateHPKEKeyPair() } catch { throw .crypto(error) }
        }
        var state = TreePrivateState(suite: suite, leafIndex: sender, leafKeyPair: leafPair)

        var pathNodes: [CommitterPath.PathNode] = []
        var secret = firstPathSecret ?? SecureRandom.bytes(suite.nh)
        for (node, copathChild) in filteredDirectPath(ofLeaf: sender) {
            let pair = try TreePrivateState.nodeKeyPair(suite: suite, pathSecret: secret)
            state.setKeyPair(pair, at: node)
            pathNodes.append(.init(node: node, copathChild: copathChild, pathSecret: secret, encryptionKey: pair.publicKey))
            secret = try TreePrivateState.nextPathSecret(suite: suite, secret)
        }
        if pathNodes.isEmpty { secret = try TreePrivateState.nextPathSecret(suite: suite, secret) }

        var newLeaf = leafNode
        newLeaf.encryptionKey = leafPair.publicKey
        newLeaf.leafNodeSource = .commit(parentHash: setPath(sender: sender, keys: pathNodes.map(\.encryptionKey)))
        do {
            newLeaf.signature = try suite.signWithLabel(
                signatureKey, label: "LeafNodeTBS", content: newLeaf.tbs(groupID: groupID, leafIndex: sender).encoded())
        } catch {
            throw .crypto(error)
        }
        nodes[Int(2 * sender)] = .leaf(newLeaf)
        rehash(changed: [2 * sender])
        return CommitterPath(sender: sender, leafNode: newLeaf, path: pathNodes, commitSecret: secret, privateState: state)
    }

    /// RFC 9420 §7.6: encrypts each path secret to the resolution of its copath child, leaving out
    /// the leaves in `excluding` (those added by the same commit), with the provisional GroupContext.
    public func encryptUpdatePath(
        _ committer: CommitterPath, groupContext: [UInt8], excluding: Set<UInt32> = []
    ) throws(TreeError) -> UpdatePath {
        let prepared: HPKEPreparedInfo
        do { prepared = try suite.prepareEncryptContext(label: "UpdatePathNode", context: groupContext) } catch {
            throw .crypto(error)
        }
        var updateNodes: [UpdatePathNode] = []
        for entry in committer.path {
            var ciphertexts: [HPKECiphertext] = []
            for x in copathResolution(entry.copathChild, excluding: excluding) {
                guard let key = encryptionKey(at: x) else { continue }
                do {
                    let sealed = try suite.encryptWithLabel(publicKey: key, prepared: prepared, plaintext: entry.pathSecret)
                    ciphertexts.append(HPKECiphertext(kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext))
                } catch {
                    throw .crypto(error)
                }
            }
            updateNodes.append(UpdatePathNode(encryptionKey: entry.encryptionKey, encryptedPathSecret: ciphertexts))
        }
        return UpdatePath(leafNode: committer.leafNode, nodes: updateNodes)
    }

    /// Checks a received UpdatePath against this tree (after the commit's proposals) and merges it
    /// (RFC 9420 §12.4.2, §7.5): one node per filtered-direct-path node, the leaf valid with source
    /// commit, its parent_hash equal to the one the new path yields, and no HPKE key already in use.
    /// On error the tree is unchanged. Needs no secrets.
    public mutating func mergeUpdatePath(
        _ path: UpdatePath, sender: UInt32, groupID: [UInt8], requiredCapabilities: RequiredCapabilities? = nil
    ) throws(TreeError) {
        try checkLeaf(sender)
        guard leafNode(at: sender) != nil else { throw .blankLeaf(sender) }
        let filtered = filteredDirectPath(ofLeaf: sender)
        let expected = filtered.count
        guard path.nodes.count == expected else { throw .pathLengthMismatch(expected: expected, actual: path.nodes.count) }
        // Every key and kem_output has the KEM's fixed size; the service checks this without ever
        // decapsulating (for X-Wing it never runs ML-KEM).
        for (node, entry) in zip(path.nodes, filtered) {
            guard node.encryptionKey.count == suite.kem.nPk,
                  node.encryptedPathSecret.allSatisfy({ $0.kemOutput.count == suite.kem.nEnc }) else {
                throw .invalidKeySize(node: entry.node)
            }
        }
        try validateLeafNode(path.leafNode, at: sender, groupID: groupID, source: .commit,
                             requiredCapabilities: requiredCapabilities)
        var merged = self
        let parentHash = merged.setPath(sender: sender, keys: path.nodes.map(\.encryptionKey))
        guard case .commit(parentHash) = path.leafNode.leafNodeSource else {
            throw .invalidParentHash(node: 2 * sender)
        }
        merged.nodes[Int(2 * sender)] = .leaf(path.leafNode)
        merged.rehash(changed: [2 * sender])
        try merged.checkUniqueKeys()
        self = merged
    }

    /// RFC 9420 §7.5 merge of the parents: blanks the sender's direct path, sets each filtered node
    /// to its new key with no unmerged leaves and with its parent hash computed from the top down.
    /// Returns the parent hash the sender's leaf must carry. The caller sets the leaf and rehashes.
    mutating func setPath(sender: UInt32, keys: [[UInt8]]) -> [UInt8] {
        let filtered = filteredDirectPath(ofLeaf: sender)
        blankDirectPathWithoutRehash(ofLeaf: sender)
        var parentHash: [UInt8] = []
        for (index, entry) in filtered.enumerated().reversed() {
            nodes[Int(entry.node)] = .parent(ParentNode(encryptionKey: keys[index], parentHash: parentHash))
            parentHash = self.parentHash(of: entry.node, copathChild: entry.copathChild)!
        }
        return parentHash
    }

    /// The resolution of a copath node without the leaves of `excluding`.
    func copathResolution(_ x: UInt32, excluding: Set<UInt32>) -> [UInt32] {
        let resolved = resolution(of: x)
        if excluding.isEmpty { return resolved }
        return resolved.filter { !(TreeMath.isLeaf($0) && excluding.contains($0 / 2)) }
    }
}
