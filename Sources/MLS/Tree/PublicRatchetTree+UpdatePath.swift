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
    /// (RFC 9420 §12.4.2, §7.5, §7.6): one node per filtered-direct-path node; the leaf valid with
    /// source commit and (unless `isNewLeaf`, an external joiner's fresh leaf) a new encryption key;
    /// no public key of the path already in the tree or twice in the path; one well-formed ciphertext
    /// per node of each copath resolution, leaving out `addedLeaves` (the leaves this commit adds);
    /// the leaf's parent_hash equal to the one the new path yields. On error the tree is unchanged.
    /// Needs no secrets; O(tree) with a set of the tree's keys.
    public mutating func mergeUpdatePath(
        _ path: UpdatePath, sender: UInt32, groupID: [UInt8], requiredCapabilities: RequiredCapabilities? = nil,
        addedLeaves: Set<UInt32> = [], isNewLeaf: Bool = false
    ) throws(TreeError) {
        try checkLeaf(sender)
        guard let current = leafNode(at: sender) else { throw .blankLeaf(sender) }
        let filtered = filteredDirectPath(ofLeaf: sender)
        guard path.nodes.count == filtered.count else {
            throw .pathLengthMismatch(expected: filtered.count, actual: path.nodes.count)
        }
        try validateLeafNode(path.leafNode, at: sender, groupID: groupID, source: .commit,
                             requiredCapabilities: requiredCapabilities)
        // RFC 9420 §12.4.2: "the encryption_key value in the LeafNode is different from the
        // committer's current leaf node".
        if !isNewLeaf, path.leafNode.encryptionKey == current.encryptionKey {
            throw .leafEncryptionKeyUnchanged(leaf: sender)
        }
        try checkFreshKeys(path, sender: sender, filtered: filtered)
        try checkCiphertexts(path, filtered: filtered, excluding: addedLeaves)
        var merged = self
        let parentHash = merged.setPath(sender: sender, keys: path.nodes.map(\.encryptionKey))
        guard case .commit(parentHash) = path.leafNode.leafNodeSource else {
            throw .invalidParentHash(node: 2 * sender)
        }
        merged.nodes[Int(2 * sender)] = .leaf(path.leafNode)
        merged.rehash(changed: [2 * sender])
        self = merged
    }

    /// RFC 9420 §12.4.2: "none of the public keys in the UpdatePath appear in any node of the new
    /// ratchet tree" (the tree the proposals produced, whose direct-path nodes the path replaces),
    /// and the path does not use one key twice. The sender's own slot is left out: its old key is
    /// the separate "different from the current leaf" rule, and an external joiner's slot already
    /// holds the path's leaf. Each parent key must be usable (RFC 9180 §7.1.4); the leaf's was
    /// checked with the leaf.
    func checkFreshKeys(_ path: UpdatePath, sender: UInt32, filtered: [(node: UInt32, copathChild: UInt32)]) throws(TreeError) {
        var keys = Set<[UInt8]>()
        keys.reserveCapacity(nodes.count + path.nodes.count + 1)
        for x in 0..<nodeWidth where x != 2 * sender {
            if let key = encryptionKey(at: x) { keys.insert(key) }
        }
        guard keys.insert(path.leafNode.encryptionKey).inserted else { throw .duplicateEncryptionKey(node: 2 * sender) }
        for (entry, node) in zip(filtered, path.nodes) {
            guard suite.kem.isValidPublicKey(node.encryptionKey) else { throw .invalidEncryptionKey(node: entry.node) }
            guard keys.insert(node.encryptionKey).inserted else { throw .duplicateEncryptionKey(node: entry.node) }
        }
    }

    /// RFC 9420 §7.6: "The length of the encrypted_path_secret vector MUST be equal to the length of
    /// the resolution of the copath node (excluding new leaf nodes)". Each ciphertext must also be
    /// one a recipient can open: `kem_output` a valid encapsulated key (RFC 9180 §7.1.4) and the
    /// sealed path secret Nh bytes plus the AEAD tag (path secrets are KDF.Nh bytes, §7.4, §12.4.2).
    /// The copath subtrees are disjoint, so this costs O(tree).
    func checkCiphertexts(_ path: UpdatePath, filtered: [(node: UInt32, copathChild: UInt32)], excluding: Set<UInt32>) throws(TreeError) {
        let sealedSize = suite.nh + suite.aead.tagSize
        for (entry, node) in zip(filtered, path.nodes) {
            let expected = copathResolution(entry.copathChild, excluding: excluding).count
            guard node.encryptedPathSecret.count == expected else { throw .ciphertextCountMismatch(node: entry.node) }
            for ciphertext in node.encryptedPathSecret {
                guard ciphertext.ciphertext.count == sealedSize, suite.kem.isValidEncapsulatedKey(ciphertext.kemOutput) else {
                    throw .malformedCiphertext(node: entry.node)
                }
            }
        }
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
